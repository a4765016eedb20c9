#include "userspace/discovery/jvm_mappings.h"

#include <linux/limits.h>

#include "userspace/proc/files.h"
#include "userspace/proc/maps.h"

namespace jfrbpf::discovery {

bool isPerfDataPath(std::string_view path, pid_t namespacePid) {
  if (proc::baseName(path) != std::to_string(namespacePid)) return false;
  std::string_view directory = path.substr(0, path.size() - proc::baseName(path).size());
  if (directory.empty()) return false;
  directory.remove_suffix(1);
  return proc::baseName(directory).starts_with("hsperfdata_");
}

void scanMapsLine(std::string_view line, pid_t namespacePid, JvmMappings& found) {
  std::optional<proc::Mapping> mapping = proc::parseMapsLine(line);
  if (!mapping || !mapping->path.starts_with('/')) return;
  std::string_view name = proc::baseName(mapping->path);
  if (name == "libjvm.so") {
    if (found.libjvmPath.empty()) found.libjvmPath = mapping->path;
  } else if (name.starts_with("libj9vm")) {
    found.openJ9 = true;
  } else if (!found.hasPerfData() && namespacePid > 0 && isPerfDataPath(mapping->path, namespacePid)) {
    found.perfData = std::move(*mapping);
  }
}

int readJvmMappings(int procDirFd, pid_t namespacePid, JvmMappings& found) {
  // A maps line is at most ~100 characters plus a path of at most PATH_MAX.
  return proc::forEachLineOfFile(procDirFd, "maps", PATH_MAX + 256, [&](std::string_view line) {
    scanMapsLine(line, namespacePid, found);
    return true;
  });
}

}  // namespace jfrbpf::discovery
