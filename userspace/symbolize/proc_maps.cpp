#include "userspace/symbolize/proc_maps.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>

#include "userspace/base/unique_fd.h"

namespace jfrbpf::symbolize {
namespace {

constexpr std::string_view kDeletedSuffix = " (deleted)";
// A maps file of a process with a huge number of mappings is a few MB; more means something is wrong.
constexpr size_t kMaxMapsBytes = 256u << 20;

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

bool parseLine(std::string_view line, Mapping& mapping) {
  if (!parseNumber(line, mapping.start, 16, '-') || !parseNumber(line, mapping.end, 16, ' ')) return false;
  if (mapping.end <= mapping.start || line.size() < 5 || line[4] != ' ') return false;
  mapping.readable = line[0] == 'r';
  mapping.writable = line[1] == 'w';
  mapping.executable = line[2] == 'x';
  mapping.shared = line[3] == 's';
  line.remove_prefix(5);
  if (!parseNumber(line, mapping.fileOffset, 16, ' ')) return false;
  if (!parseNumber(line, mapping.devMajor, 16, ':') || !parseNumber(line, mapping.devMinor, 16, ' ')) return false;
  if (!parseNumber(line, mapping.inode, 10, '\0')) return false;
  if (!line.empty() && !skipSpaces(line)) return false;  // the inode must be followed by padding or the end
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
  return true;
}

}  // namespace

std::vector<Mapping> parseProcMaps(std::string_view text) {
  std::vector<Mapping> mappings;
  while (!text.empty()) {
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    Mapping mapping;
    if (parseLine(line, mapping)) mappings.push_back(std::move(mapping));
  }
  return mappings;
}

std::vector<Mapping> readProcMaps(int pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/maps";
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT || errno == ESRCH) throw ProcessGoneError("process " + std::to_string(pid) + " is gone");
    throw systemError("cannot open " + path + " (needs root or CAP_SYS_PTRACE)");
  }
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == ESRCH) throw ProcessGoneError("process " + std::to_string(pid) + " is gone");
      throw systemError("cannot read " + path);
    }
    if (got == 0) break;
    content.append(buffer, static_cast<size_t>(got));
    if (content.size() > kMaxMapsBytes) throw Error(path + " is larger than 256 MB: refusing to parse it");
  }
  // A process that exited between open and read leaves an empty file behind.
  if (content.empty() && ::access(("/proc/" + std::to_string(pid)).c_str(), F_OK) != 0) {
    throw ProcessGoneError("process " + std::to_string(pid) + " is gone");
  }
  return parseProcMaps(content);
}

std::string_view baseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace jfrbpf::symbolize
