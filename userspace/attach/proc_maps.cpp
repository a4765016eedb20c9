#include "userspace/attach/proc_maps.h"

#include <charconv>

#include "userspace/attach/text_fields.h"

namespace jfrbpf::attach {
namespace {

constexpr std::string_view kDeletedSuffix = " (deleted)";

std::optional<uint64_t> parseHex(std::string_view s) {
  uint64_t value = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// Skips one whitespace-delimited field and the blanks after it; false if the line ends first.
bool skipField(std::string_view& line, std::string_view* field) {
  size_t i = 0;
  while (i < line.size() && !isBlank(line[i])) ++i;
  if (i == 0 || i == line.size()) return false;
  if (field) *field = line.substr(0, i);
  while (i < line.size() && isBlank(line[i])) ++i;
  line.remove_prefix(i);
  return true;
}

std::optional<MappedFile> parseLine(std::string_view line) {
  std::string_view range;
  // range, perms, offset, dev, inode; the path (which may contain blanks) is the rest of the line.
  if (!skipField(line, &range)) return std::nullopt;
  for (int i = 0; i < 4; ++i) {
    if (!skipField(line, nullptr)) return std::nullopt;
  }
  if (line.empty() || line.front() != '/') return std::nullopt;
  size_t dash = range.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto start = parseHex(range.substr(0, dash));
  auto end = parseHex(range.substr(dash + 1));
  if (!start || !end || *end <= *start) return std::nullopt;
  MappedFile file{*start, *end, {}, false};
  if (line.ends_with(kDeletedSuffix)) {
    line.remove_suffix(kDeletedSuffix.size());
    file.deleted = true;
  }
  file.path.assign(line);
  return file;
}

}  // namespace

std::vector<MappedFile> parseMappedFiles(std::string_view mapsText) {
  std::vector<MappedFile> files;
  forEachLine(mapsText, [&](std::string_view line) {
    if (auto file = parseLine(line)) files.push_back(std::move(*file));
  });
  return files;
}

std::string_view baseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

const MappedFile* findByBaseName(const std::vector<MappedFile>& files, std::string_view name) {
  for (const MappedFile& file : files) {
    if (baseName(file.path) == name) return &file;
  }
  return nullptr;
}

const MappedFile* findByBaseNamePrefix(const std::vector<MappedFile>& files, std::string_view prefix) {
  for (const MappedFile& file : files) {
    if (baseName(file.path).starts_with(prefix)) return &file;
  }
  return nullptr;
}

const MappedFile* findPerfDataFile(const std::vector<MappedFile>& files, pid_t namespacePid) {
  std::string pidText = std::to_string(namespacePid);
  for (const MappedFile& file : files) {
    std::string_view path = file.path;
    if (baseName(path) != pidText) continue;
    path.remove_suffix(pidText.size() + 1);
    if (baseName(path).starts_with("hsperfdata_")) return &file;
  }
  return nullptr;
}

}  // namespace jfrbpf::attach
