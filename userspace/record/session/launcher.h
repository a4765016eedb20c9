#pragma once
// Launch mode: `jfrbpf record [options] -- CMD ARGS...`. The child is created stopped at a gate, so the
// sampler can target its pid before it runs a single instruction of CMD; under sudo it runs with the
// invoking user's credentials, not root's.
#include <sys/resource.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "base/unique_fd.h"

namespace jfrbpf::record {

class LaunchedProcess {
 public:
  // Forks; the child waits at the gate. Throws jfrbpf::Error.
  // `openFiles`: the descriptor limit the program gets (jfrbpf's own is raised for its perf events).
  LaunchedProcess(const std::vector<std::string>& command, const rlimit& openFiles);
  ~LaunchedProcess();  // a child never released is killed and reaped
  LaunchedProcess(const LaunchedProcess&) = delete;
  LaunchedProcess& operator=(const LaunchedProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Lets the child exec CMD; throws jfrbpf::Error if exec failed (e.g. command not found).
  void release();
  // Reaps the child if it has exited; returns true then, with its wait status.
  bool reap(int& status);

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  UniqueFd gate_;       // parent writes one byte to let the child go
  UniqueFd execError_;  // child writes errno if exec fails; EOF means exec succeeded
  std::string program_;
};

}  // namespace jfrbpf::record
