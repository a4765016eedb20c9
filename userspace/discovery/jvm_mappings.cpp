#include "userspace/discovery/jvm_mappings.h"

#include <linux/limits.h>

#include "userspace/discovery/proc_files.h"
#include "userspace/discovery/text_fields.h"

namespace jfrbpf::discovery {
namespace {

constexpr std::string_view kDeletedSuffix = " (deleted)";

std::string_view baseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// "<dir>/hsperfdata_<user>/<namespacePid>"
bool isPerfDataPath(std::string_view path, pid_t namespacePid) {
  if (baseName(path) != std::to_string(namespacePid)) return false;
  std::string_view directory = path.substr(0, path.size() - baseName(path).size());
  if (directory.empty()) return false;
  directory.remove_suffix(1);
  return baseName(directory).starts_with("hsperfdata_");
}

}  // namespace

void scanMapsLine(std::string_view line, pid_t namespacePid, JvmMappings& found) {
  // "start-end perms offset dev inode      path": the path is everything after the fifth field.
  auto fields = splitFields(line, 5);
  if (fields.size() < 5) return;
  size_t pathStart = static_cast<size_t>(fields[4].data() + fields[4].size() - line.data());
  std::string_view path = trimBlanks(line.substr(pathStart));
  if (path.empty() || path.front() != '/') return;
  if (path.ends_with(kDeletedSuffix)) path.remove_suffix(kDeletedSuffix.size());
  std::string_view name = baseName(path);
  if (name == "libjvm.so") {
    if (found.libjvmPath.empty()) found.libjvmPath = path;
  } else if (name.starts_with("libj9vm")) {
    found.openJ9 = true;
  } else if (!found.hasPerfData() && namespacePid > 0 && isPerfDataPath(path, namespacePid)) {
    std::string_view range = fields[0];
    size_t dash = range.find('-');
    if (dash == std::string_view::npos) return;
    auto start = parseNumber<uint64_t>(range.substr(0, dash), 16);
    auto end = parseNumber<uint64_t>(range.substr(dash + 1), 16);
    if (!start || !end || *end <= *start) return;
    found.perfDataStart = *start;
    found.perfDataEnd = *end;
    found.perfDataPath = path;
  }
}

int readJvmMappings(int procDirFd, pid_t namespacePid, JvmMappings& found) {
  // A maps line is at most ~100 characters plus a path of at most PATH_MAX.
  return forEachLineOfFile(procDirFd, "maps", PATH_MAX + 256, [&](std::string_view line) {
    scanMapsLine(line, namespacePid, found);
    return true;
  });
}

}  // namespace jfrbpf::discovery
