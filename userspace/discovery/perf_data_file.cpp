#include "userspace/discovery/perf_data_file.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>

#include "userspace/proc/paths.h"
#include "userspace/proc/process_dir.h"
#include "userspace/proc/root_files.h"

namespace jfrbpf::discovery {

proc::FileData readJvmPerfData(int procDirFd, const JvmMappings& mappings) {
  if (!mappings.hasPerfData()) return proc::FileData{{}, ENOENT};
  const size_t limit = std::min<uint64_t>(kPerfDataReadLimit, mappings.perfDataEnd - mappings.perfDataStart);
  const std::string mapFile = proc::mapFilesEntry(mappings.perfDataStart, mappings.perfDataEnd);
  UniqueFd fd(::openat(procDirFd, mapFile.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) {
    UniqueFd root = proc::openProcessRootAt(procDirFd);
    if (!root) return proc::FileData{{}, errno};
    fd = proc::openInRoot(root.get(), mappings.perfDataPath, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    if (!fd) return proc::FileData{{}, errno};
  }
  return proc::readRegularFile(fd.get(), limit);
}

}  // namespace jfrbpf::discovery
