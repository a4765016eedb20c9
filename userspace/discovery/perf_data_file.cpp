#include "userspace/discovery/perf_data_file.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>

#include "userspace/proc/mapped_file.h"

namespace jfrbpf::discovery {

proc::FileData readJvmPerfData(int procDirFd, const JvmMappings& mappings) {
  if (!mappings.hasPerfData()) return proc::FileData{{}, ENOENT};
  const size_t limit = std::min<uint64_t>(kPerfDataReadLimit, mappings.perfData.end - mappings.perfData.start);
  UniqueFd fd = proc::openMappedFileAt(procDirFd, mappings.perfData, proc::Links::kRefuse);
  if (!fd) return proc::FileData{{}, errno};
  return proc::readRegularFile(fd.get(), limit);
}

}  // namespace jfrbpf::discovery
