#include "userspace/proc/maps.h"

#include <charconv>

#include "userspace/proc/proc_file.h"

namespace jfrbpf::proc {
namespace {

constexpr std::string_view kDeletedSuffix = " (deleted)";
// A maps file of a process with the most mappings the kernel allows by default is a few MB; vm.max_map_count
// raised to 262144 still fits. More means something is wrong.
constexpr size_t kMaxMapsBytes = 64u << 20;

template <typename T>
bool parseNumber(std::string_view& text, T& value, int base, char terminator) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(begin, end, value, base);
  if (error != std::errc() || stop == begin) return false;
  if (terminator != '\0') {
    if (stop == end || *stop != terminator) return false;
    ++stop;
  }
  text.remove_prefix(static_cast<size_t>(stop - begin));
  return true;
}

bool skipSpaces(std::string_view& text) {
  size_t count = 0;
  while (count < text.size() && text[count] == ' ') ++count;
  text.remove_prefix(count);
  return count > 0;
}

MappingKind classify(std::string_view path, bool deleted) {
  if (path.empty()) return MappingKind::kAnonymous;
  // Kernels since 6.x show memfds as "/memfd:name (deleted)", older ones without the slash.
  if (path.starts_with("memfd:") || (deleted && path.starts_with("/memfd:"))) return MappingKind::kMemfd;
  if (path.front() == '/') return MappingKind::kFile;
  if (path == "[vdso]") return MappingKind::kVdso;
  if (path.starts_with("[anon:") || path.starts_with("[anon_shmem:") || path == "[heap]" ||
      path.starts_with("[stack")) {
    return MappingKind::kAnonymous;
  }
  return MappingKind::kSpecial;
}

}  // namespace

std::optional<Mapping> parseMapsLine(std::string_view line) {
  Mapping mapping;
  if (!parseNumber(line, mapping.start, 16, '-') || !parseNumber(line, mapping.end, 16, ' ')) return std::nullopt;
  if (mapping.end <= mapping.start || line.size() < 5 || line[4] != ' ') return std::nullopt;
  mapping.readable = line[0] == 'r';
  mapping.writable = line[1] == 'w';
  mapping.executable = line[2] == 'x';
  mapping.shared = line[3] == 's';
  line.remove_prefix(5);
  if (!parseNumber(line, mapping.fileOffset, 16, ' ')) return std::nullopt;
  if (!parseNumber(line, mapping.devMajor, 16, ':') || !parseNumber(line, mapping.devMinor, 16, ' ')) {
    return std::nullopt;
  }
  if (!parseNumber(line, mapping.inode, 10, '\0')) return std::nullopt;
  if (!line.empty() && !skipSpaces(line)) return std::nullopt;  // the inode must be followed by padding or the end
  std::string_view path = line;
  if (path.ends_with(kDeletedSuffix) && path.size() > kDeletedSuffix.size()) {
    mapping.deleted = true;
    path.remove_suffix(kDeletedSuffix.size());
  }
  mapping.path.assign(path);
  mapping.kind = classify(path, mapping.deleted);
  if (mapping.deleted && mapping.kind != MappingKind::kFile && mapping.kind != MappingKind::kMemfd) {
    // Only files can be deleted; anything else merely had a name ending like that.
    mapping.deleted = false;
    mapping.path.append(kDeletedSuffix);
    mapping.kind = classify(mapping.path, false);
  }
  return mapping;
}

std::vector<Mapping> parseMaps(std::string_view text) {
  std::vector<Mapping> mappings;
  while (!text.empty()) {
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    if (std::optional<Mapping> mapping = parseMapsLine(line)) mappings.push_back(std::move(*mapping));
  }
  return mappings;
}

std::vector<Mapping> readMaps(pid_t pid) { return parseMaps(readProcFile(pid, "maps", kMaxMapsBytes)); }

std::string_view baseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace jfrbpf::proc
