#pragma once
// A JVM's threads by their kernel name: how the tests find the agent's own thread ("jfrbpf agent"), which no
// Java API lists.
#include <sys/types.h>

#include <string>
#include <vector>

#include "userspace/proc/comm.h"
#include "userspace/proc/process_dir.h"

namespace jfrbpf::test {

// Tids of `pid`'s threads whose name (comm) is `name`.
inline std::vector<pid_t> threadsNamed(pid_t pid, const std::string& name) {
  std::vector<pid_t> tids;
  for (pid_t tid : proc::listTasks(pid)) {
    if (proc::readThreadComm(pid, tid) == name) tids.push_back(tid);
  }
  return tids;
}

}  // namespace jfrbpf::test
