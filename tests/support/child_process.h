#pragma once
// Test helper: runs a program with its stdout (and optionally stderr) captured, and never leaves it
// behind — the destructor kills and reaps it.
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace jfrbpf::test {

struct ChildOptions {
  bool captureStderr = false;  // merged into stdout
  std::vector<std::string> extraEnv;  // "NAME=value"
};

class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, ChildOptions options = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // The next line of output, or nullopt at EOF or after `timeout`.
  std::optional<std::string> readLine(std::chrono::milliseconds timeout);
  // Everything until EOF (bounded by `timeout`).
  std::string readAll(std::chrono::milliseconds timeout);
  void signal(int signo);
  // Waits for exit; returns the exit code (128+signal if killed), or nullopt on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  bool reaped_ = false;
  std::string buffer_;
};

// Stops a process (SIGSTOP) for the scope, continues it (SIGCONT) at its end: a workload's busy threads keep
// off the 2-CPU machine while the test reads its recording (three spinning threads made `jfr print` and the
// parsing 2-3 times slower). Nothing is sampled then: the recording is over.
class PausedProcess {
 public:
  explicit PausedProcess(pid_t pid) : pid_(pid), paused_(pid > 0 && kill(pid, SIGSTOP) == 0) {}  // never a group
  ~PausedProcess() {
    if (paused_) kill(pid_, SIGCONT);
  }
  PausedProcess(const PausedProcess&) = delete;
  PausedProcess& operator=(const PausedProcess&) = delete;

 private:
  pid_t pid_;
  bool paused_;
};

// Runs to completion, with `extraEnv` ("NAME=value") added to the environment, and returns {exit code, output
// (stdout+stderr)}.
struct RunResult {
  int exitCode = -1;
  std::string output;
};
RunResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout = std::chrono::seconds(120),
              const std::vector<std::string>& extraEnv = {});

}  // namespace jfrbpf::test
