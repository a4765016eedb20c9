#pragma once
// A process the benchmark starts (a workload, jfrbpf, a JDK tool): its stdout read line by line, its stdin
// optionally written, its stderr kept in a log file. Still running at destruction: killed (SIGKILL, by its
// own pid) and reaped; and it gets SIGKILL if the benchmark itself dies (PR_SET_PDEATHSIG), so no benchmark
// leaves a process behind.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/unique_fd.h"

namespace jfrbpf::bench {

class ChildProcess {
 public:
  struct Options {
    bool writableStdin = false;                 // else stdin is /dev/null
    std::string stderrPath;                     // "" sends stderr to /dev/null
    std::vector<std::string> extraEnvironment;  // "NAME=value", added to this process's environment

    static Options stderrTo(std::string path) {
      Options options;
      options.stderrPath = std::move(path);
      return options;
    }
  };

  // Starts argv[0] (searched in PATH when it has no slash). Throws jfrbpf::Error.
  ChildProcess(const std::vector<std::string>& argv, const Options& options);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  const std::string& name() const { return name_; }

  // The next line of stdout (without its newline); nullopt at end of file or timeout.
  std::optional<std::string> readLine(std::chrono::milliseconds timeout);
  // Reads lines until one starts with `prefix` and returns it; nullopt at end of file or timeout.
  std::optional<std::string> awaitLine(std::string_view prefix, std::chrono::milliseconds timeout);
  // Everything stdout still has until end of file (or timeout).
  std::string readRest(std::chrono::milliseconds timeout);
  void writeLine(const std::string& line);

  void signal(int sig);
  // True until the process has exited (and then reaps it).
  bool running();
  // Closes its stdin, waits for the exit and returns the wait status; kills the process after `timeout` (then
  // returns -1).
  int wait(std::chrono::milliseconds timeout);

 private:
  bool fillBuffer(std::chrono::steady_clock::time_point deadline);

  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = -1;
  std::string name_;
  UniqueFd stdout_;
  UniqueFd stdin_;
  std::string buffer_;
  bool eof_ = false;
};

}  // namespace jfrbpf::bench
