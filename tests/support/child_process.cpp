#include "tests/support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "base/error.h"

extern char** environ;

namespace jfrbpf::test {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds until(Clock::time_point deadline) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
}

void makePipe(UniqueFd& readEnd, UniqueFd& writeEnd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw systemError("pipe2");
  readEnd.reset(fds[0]);
  writeEnd.reset(fds[1]);
}

// A file only this process can reach: unlinked at once, so that nothing is left whatever happens to the test.
UniqueFd privateFile() {
  char path[] = "/tmp/jfrbpf-child-output-XXXXXX";
  UniqueFd fd(mkostemp(path, O_CLOEXEC));
  if (!fd) throw systemError("mkostemp");
  unlink(path);
  return fd;
}

UniqueFd keptFile(const std::string& path) {
  if (path.empty()) return privateFile();
  UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) throw systemError("cannot open " + path);
  return fd;
}

std::string wholeFile(const UniqueFd& fd) {
  std::string text;
  char chunk[65536];
  ssize_t n;
  while ((n = pread(fd.get(), chunk, sizeof chunk, static_cast<off_t>(text.size()))) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) text.append(chunk, static_cast<size_t>(n));
  }
  return text;
}

std::string_view variableName(std::string_view entry) { return entry.substr(0, entry.find('=')); }

// This process's environment with `extra` ("NAME=value") replacing what it names: with the same name twice the
// child's getenv would find the first, the old value.
std::vector<std::string> environmentWith(const std::vector<std::string>& extra) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    bool replaced = false;
    for (const std::string& wanted : extra) replaced = replaced || variableName(wanted) == variableName(*entry);
    if (!replaced) environment.emplace_back(*entry);
  }
  environment.insert(environment.end(), extra.begin(), extra.end());
  return environment;
}

// A reaped process's status as an exit code: 128 + the signal that killed it, as a shell reports it.
int exitCodeOf(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const ChildOptions& options)
    : stopGrace_(options.stopGrace) {
  if (argv.empty()) throw Error("ChildProcess: empty command line");
  // Everything the child needs is made here: between fork and exec only async-signal-safe calls are allowed.
  UniqueFd outRead, outWrite, inRead, inWrite, execRead, execWrite;
  if (options.keepStdout) {
    keptStdout_ = privateFile();
  } else {
    makePipe(outRead, outWrite);
  }
  if (options.writableStdin) {
    makePipe(inRead, inWrite);
  } else {
    inRead.reset(open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!inRead) throw systemError("cannot open /dev/null");
  }
  if (options.keepStderr) keptStderr_ = keptFile(options.stderrPath);
  makePipe(execRead, execWrite);  // carries errno when the exec fails; a successful exec closes it
  const int out = options.keepStdout ? keptStdout_.get() : outWrite.get();
  const int err = options.captureStderr ? out : options.keepStderr ? keptStderr_.get() : STDERR_FILENO;

  std::vector<std::string> environment = environmentWith(options.extraEnv);
  std::vector<std::string> arguments = argv;
  std::vector<char*> envp, args;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  for (std::string& argument : arguments) args.push_back(argument.data());
  args.push_back(nullptr);
  const char* cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
  const pid_t parent = getpid();

  pid_ = fork();
  if (pid_ < 0) throw systemError("fork");
  if (pid_ == 0) {
    // Dies with the test however the test ends: nothing keeps running behind it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    setpgid(0, 0);  // its own group: a signal to the test's terminal group never reaches it, and stop() ends all of it
    dup2(inRead.get(), STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    if (cwd == nullptr || chdir(cwd) == 0) execvpe(args[0], args.data(), envp.data());
    int error = errno;
    ssize_t ignored = write(execWrite.get(), &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid_, pid_);  // as the child does: whichever runs first, the group exists once the constructor returns
  execWrite.reset();
  int error = 0;
  ssize_t n;
  while ((n = read(execRead.get(), &error, sizeof error)) < 0 && errno == EINTR) {
  }
  if (n == sizeof error) {
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw Error("cannot start " + argv.front() + (cwd ? " in " + options.cwd : "") + ": " + std::strerror(error));
  }
  stdout_ = std::move(outRead);
  stdin_ = std::move(inWrite);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      exitCode_(other.exitCode_),
      stopGrace_(other.stopGrace_),
      stdout_(std::move(other.stdout_)),
      stdin_(std::move(other.stdin_)),
      keptStdout_(std::move(other.keptStdout_)),
      keptStderr_(std::move(other.keptStderr_)),
      buffer_(std::move(other.buffer_)) {}

std::optional<std::string> ChildProcess::readLine(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    std::chrono::milliseconds left = until(deadline);
    if (!stdout_ || left.count() <= 0) return std::nullopt;
    pollfd ready{stdout_.get(), POLLIN, 0};
    if (poll(&ready, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[4096];
    ssize_t n = read(stdout_.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (buffer_.empty()) return std::nullopt;
      return std::exchange(buffer_, {});
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

std::optional<std::string> ChildProcess::awaitLine(std::string_view prefix, std::chrono::milliseconds timeout,
                                                   std::vector<std::string>* seen) {
  const Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    std::chrono::milliseconds left = until(deadline);
    if (left.count() <= 0) return std::nullopt;
    std::optional<std::string> line = readLine(left);
    if (!line) return std::nullopt;
    if (seen != nullptr) seen->push_back(*line);
    if (line->starts_with(prefix)) return line;
  }
}

bool ChildProcess::readUntil(std::string_view text, std::chrono::milliseconds lineTimeout, std::string& output) {
  while (output.find(text) == std::string::npos) {
    std::optional<std::string> line = readLine(lineTimeout);
    if (!line) return false;
    output += *line + "\n";
  }
  return true;
}

std::string ChildProcess::readAll(std::chrono::milliseconds timeout) {
  std::string all = std::exchange(buffer_, {});
  std::vector<char> chunk(1 << 16);
  Clock::time_point deadline = Clock::now() + timeout;
  while (stdout_) {
    std::chrono::milliseconds left = until(deadline);
    if (left.count() <= 0) break;
    pollfd ready{stdout_.get(), POLLIN, 0};
    if (poll(&ready, 1, static_cast<int>(left.count())) <= 0) continue;
    ssize_t n = read(stdout_.get(), chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    all.append(chunk.data(), static_cast<size_t>(n));
    deadline = Clock::now() + timeout;
  }
  if (!all.empty() && all.back() != '\n') all += '\n';
  return all;
}

void ChildProcess::writeLine(const std::string& line) {
  if (!stdin_) throw Error("the child's stdin is not writable (ChildOptions::writableStdin)");
  std::string text = line + "\n";
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(stdin_.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw systemError("cannot write to the child");
    done += static_cast<size_t>(n);
  }
}

std::string ChildProcess::stdoutText() const { return keptStdout_ ? wholeFile(keptStdout_) : std::string(); }

std::string ChildProcess::stderrText() const { return keptStderr_ ? wholeFile(keptStderr_) : std::string(); }

void ChildProcess::signal(int signo) {
  if (pid_ > 0 && !exitCode_) kill(pid_, signo);
}

bool ChildProcess::running() {
  if (pid_ <= 0 || exitCode_) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) return true;
  exitCode_ = exitCodeOf(status);
  return false;
}

std::optional<int> ChildProcess::wait(std::chrono::milliseconds timeout) {
  stdin_.reset();
  const Clock::time_point deadline = Clock::now() + timeout;
  while (running()) {
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return exitCode_;
}

void ChildProcess::stop() {
  if (pid_ <= 0 || exitCode_) return;
  stdin_.reset();
  if (stopGrace_.count() > 0) {
    kill(-pid_, SIGCONT);  // a stopped process would keep the SIGTERM pending
    kill(-pid_, SIGTERM);
    // Waited for without reaping: while the leader is a zombie its group id cannot be taken by another process.
    const Clock::time_point deadline = Clock::now() + stopGrace_;
    siginfo_t info{};
    while (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != pid_ &&
           Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (kill(-pid_, SIGKILL) != 0) kill(pid_, SIGKILL);  // the leader if it is still there, and what it started
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  exitCode_ = exitCodeOf(status);
}

RunResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
              const std::vector<std::string>& extraEnv) {
  ChildProcess child(argv, {.captureStderr = true, .extraEnv = extraEnv});
  RunResult result;
  result.output = child.readAll(timeout);
  result.exitCode = child.wait(timeout).value_or(-1);
  return result;
}

}  // namespace jfrbpf::test
