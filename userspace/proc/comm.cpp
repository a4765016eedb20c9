#include "userspace/proc/comm.h"

#include <fcntl.h>

#include "userspace/proc/files.h"
#include "userspace/proc/paths.h"

namespace jfrbpf::proc {
namespace {

constexpr size_t kCommLimit = 256;  // TASK_COMM_LEN is 16, but a kernel worker shows its workqueue too

}  // namespace

std::string_view parseComm(std::string_view text) { return text.substr(0, text.find('\n')); }

std::string readThreadComm(pid_t pid, pid_t tid) {
  FileData text = readFileAt(AT_FDCWD, taskPath(pid, tid, "comm").c_str(), kCommLimit);
  return text.ok() ? std::string(parseComm(text.bytes)) : std::string();
}

}  // namespace jfrbpf::proc
