#pragma once
// The one way the tests and the benchmarks run a program: its stdout read from a pipe (or kept in a file), its
// stderr where the caller wants it, and never left behind — in a process group of its own, ended with that
// group on destruction, and sent SIGKILL if the test process dies first.
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/unique_fd.h"

namespace jfrbpf::test {

struct ChildOptions {
  // stderr goes to the test's own stderr, unless it is captured (interleaved with stdout, wherever stdout goes)
  // or kept (keepStderr).
  bool captureStderr = false;
  std::vector<std::string> extraEnv;  // "NAME=value", each replacing NAME in this process's environment
  // stderr in a file, read back with stderrText(): `stderrPath`, which stays (the benchmark's logs), or else a
  // private one that goes with the object. Not with captureStderr.
  bool keepStderr = false;
  std::string stderrPath;
  // stdout in a private file, read back with stdoutText(), instead of a pipe: a process nobody reads from
  // cannot block on a full pipe.
  bool keepStdout = false;
  bool writableStdin = false;  // a pipe for writeLine(); else /dev/null
  std::string cwd;             // "" leaves it in this process's working directory
  // How it is ended (destruction, stop()): SIGKILL at once, or with a grace SIGTERM first (a JVM then deletes
  // its hsperfdata file and attach socket) and SIGKILL when it has not exited by then.
  std::chrono::milliseconds stopGrace{0};
};

class ChildProcess {
 public:
  // Starts argv[0] (searched in PATH when it has no '/'). Throws jfrbpf::Error when it cannot be started.
  explicit ChildProcess(const std::vector<std::string>& argv, const ChildOptions& options = {});
  ChildProcess(ChildProcess&& other) noexcept;  // the benchmark's workloads are returned by value
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() { stop(); }

  pid_t pid() const { return pid_; }

  // The next line of stdout (without its newline), or nullopt at end of file or after `timeout`.
  std::optional<std::string> readLine(std::chrono::milliseconds timeout);
  // Reads lines until one starts with `prefix` and returns it; nullopt at end of file or after `timeout`. Every
  // line read, that one too, is added to `seen` when given.
  std::optional<std::string> awaitLine(std::string_view prefix, std::chrono::milliseconds timeout,
                                       std::vector<std::string>* seen = nullptr);
  // Reads lines into `output` (each with its newline) until `output` holds `text`; false at end of file, or when
  // no line came within `lineTimeout`: a busy machine only makes a recorder's lines come slower.
  bool readUntil(std::string_view text, std::chrono::milliseconds lineTimeout, std::string& output);
  // Everything stdout still has until end of file, in whole reads rather than line by line (`jfr print --json`
  // writes hundreds of MB: 215 MB took 7.5 s line by line, 0.2 s so). `timeout` bounds each wait for more
  // output, as it does a line's; the text ends with a newline.
  std::string readAll(std::chrono::milliseconds timeout);
  void writeLine(const std::string& line);  // with writableStdin

  std::string stdoutText() const;  // with keepStdout: all it wrote so far
  std::string stderrText() const;  // with keepStderr: all it wrote so far

  void signal(int signo);  // to the process alone, not its group
  // True until it has exited (and then reaps it).
  bool running();
  // Closes its stdin (a child that reads it to the end is waiting for that) and waits for the exit: the exit
  // code (128 + the signal when killed by one), or nullopt after `timeout`, the process still running.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  // Ends it as ChildOptions::stopGrace says, with whatever else runs in its process group, and reaps it.
  void stop();

 private:
  pid_t pid_ = -1;
  std::optional<int> exitCode_;  // once reaped
  std::chrono::milliseconds stopGrace_{0};
  UniqueFd stdout_;
  UniqueFd stdin_;
  UniqueFd keptStdout_;
  UniqueFd keptStderr_;
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
// (stdout+stderr)}; the exit code is -1 when it did not end within `timeout`.
struct RunResult {
  int exitCode = -1;
  std::string output;
};
RunResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout = std::chrono::seconds(120),
              const std::vector<std::string>& extraEnv = {});

}  // namespace jfrbpf::test
