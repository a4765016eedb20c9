#pragma once
// A child process for end-to-end tests (a JVM, jcmd): stdout read line by line with timeouts, stderr kept
// in a temporary file for failure messages, and the process killed and reaped on destruction.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace jfrbpf::jvm::test {

class ChildProcess {
 public:
  explicit ChildProcess(const std::vector<std::string>& argv);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  // The next line of stdout; nullopt at EOF or after `timeout`.
  std::optional<std::string> readLine(std::chrono::milliseconds timeout);
  // Reads lines until one starts with `prefix`; every line read is appended to `seen`.
  bool waitForLine(const std::string& prefix, std::chrono::milliseconds timeout, std::vector<std::string>& seen);
  // Waits for exit; the exit status, or -1 on timeout (the process is then killed).
  int wait(std::chrono::milliseconds timeout);
  std::string stdoutRest(std::chrono::milliseconds timeout);
  std::string stderrText() const;

 private:
  pid_t pid_ = -1;
  int stdout_ = -1;
  std::string stderrPath_;
  std::string buffered_;
  bool exited_ = false;
};

// Runs a command to completion (killed after `timeout`); returns exit status and stdout+stderr.
int runCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout, std::string& output);

// CPU time (utime + stime, clock ticks) of a thread of `pid`, from /proc; -1 if gone.
long threadCpuTicks(pid_t pid, pid_t tid);
// Threads of `pid` whose kernel name (comm) is `comm`.
std::vector<pid_t> threadsNamed(pid_t pid, const std::string& comm);
std::string threadComm(pid_t pid, pid_t tid);

}  // namespace jfrbpf::jvm::test
