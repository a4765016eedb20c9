#pragma once
// Processes the discovery tests start: stdin/stdout piped, killed and reaped when the object dies, so a
// failing assertion never leaves a JVM (or a pid namespace) behind.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace jfrbpf::discovery_test {

class ChildProcess {
 public:
  // argv[0] is looked up in PATH when it has no '/'. Throws std::runtime_error when it cannot be started.
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Reads stdout until a line equal to `line`; false on end of file or after `timeout` (a hang guard).
  bool waitForLine(const std::string& line, std::chrono::milliseconds timeout = std::chrono::seconds(60));
  void writeLine(const std::string& line);
  // Everything on stdout until end of file (or `timeout`), including what waitForLine read past its line.
  std::string readAll(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // SIGKILL; with reap, also waits for it so that its pid disappears from /proc.
  void kill(bool reap = true);
  // Waits for it to exit by itself: its exit status (128 + signal when killed), nullopt after `timeout`.
  std::optional<int> waitForExit(std::chrono::milliseconds timeout);
  // SIGTERM (a JVM then deletes its hsperfdata file), SIGKILL if it has not exited within `grace`; reaps.
  void terminate(std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  pid_t pid_ = -1;
  int stdinFd_ = -1;
  int stdoutFd_ = -1;
  std::string buffered_;
};

// Children of `pid` (from /proc/PID/task/PID/children).
std::vector<pid_t> childrenOf(pid_t pid);
// Waits until /proc/PID/stat shows state `state` (e.g. 'Z'); false after `timeout`.
bool waitForState(pid_t pid, char state, std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace jfrbpf::discovery_test
