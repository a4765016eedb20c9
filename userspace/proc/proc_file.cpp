#include "userspace/proc/proc_file.h"

#include <fcntl.h>
#include <unistd.h>

#include "base/unique_fd.h"
#include "userspace/proc/files.h"
#include "userspace/proc/paths.h"

namespace jfrbpf::proc {
namespace {

std::string describeSize(size_t bytes) {
  if (bytes >= (1u << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::string readProcFile(pid_t pid, const char* entry, size_t limit) {
  const std::string path = procPath(pid, entry);
  auto gone = [pid] { return ProcessGoneError("process " + std::to_string(pid) + " is gone"); };
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT || errno == ESRCH) throw gone();
    throw systemError("cannot open " + path + " (needs root or CAP_SYS_PTRACE)");
  }
  FileData content = readFd(fd.get(), limit + 1);
  if (content.error == ESRCH) throw gone();
  if (!content.ok()) throw systemError("cannot read " + path, content.error);
  if (content.bytes.size() > limit) throw Error(path + " is larger than " + describeSize(limit) + ": refusing to parse it");
  // A process that exited between open and read leaves an empty file behind.
  if (content.bytes.empty() && ::access(processDirPath(pid).c_str(), F_OK) != 0) throw gone();
  return std::move(content.bytes);
}

}  // namespace jfrbpf::proc
