#include "userspace/discovery/perf_data_file.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace jfrbpf::discovery {

FileData readJvmPerfData(int procDirFd, const JvmMappings& mappings) {
  if (!mappings.hasPerfData()) return FileData{{}, ENOENT};
  const size_t limit = std::min<uint64_t>(kPerfDataReadLimit, mappings.perfDataEnd - mappings.perfDataStart);
  char mapFile[64];
  std::snprintf(mapFile, sizeof mapFile, "map_files/%llx-%llx", static_cast<unsigned long long>(mappings.perfDataStart),
                static_cast<unsigned long long>(mappings.perfDataEnd));
  UniqueFd fd(::openat(procDirFd, mapFile, O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) {
    UniqueFd root(::openat(procDirFd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root) return FileData{{}, errno};
    fd = openInRoot(root.get(), mappings.perfDataPath, O_NONBLOCK);
    if (!fd) return FileData{{}, errno};
  }
  return readRegularFile(fd.get(), limit);
}

}  // namespace jfrbpf::discovery
