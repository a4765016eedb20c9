#include "bench/sampler/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>
#include <utility>

#include "base/error.h"

extern char** environ;

namespace jfrbpf::bench {
namespace {

using Clock = std::chrono::steady_clock;

void makePipe(UniqueFd& readEnd, UniqueFd& writeEnd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw systemError("pipe2");
  readEnd.reset(fds[0]);
  writeEnd.reset(fds[1]);
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const Options& options) {
  if (argv.empty()) throw Error("ChildProcess: empty command line");
  name_ = std::filesystem::path(argv.front()).filename().string();
  UniqueFd outRead, outWrite, inRead, inWrite, execRead, execWrite;
  makePipe(outRead, outWrite);
  if (options.writableStdin) makePipe(inRead, inWrite);
  makePipe(execRead, execWrite);  // carries errno if exec fails; closed by a successful exec
  // Opened here: between fork and exec only async-signal-safe calls are allowed. The log lives in the
  // benchmark's private directory (mkdtemp), so creating it there is safe.
  UniqueFd input(options.writableStdin ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC));
  UniqueFd errors(options.stderrPath.empty()
                      ? open("/dev/null", O_WRONLY | O_CLOEXEC)
                      : open(options.stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!errors) throw systemError("cannot open " + options.stderrPath);

  std::vector<std::string> environment;
  for (char** e = environ; *e; ++e) environment.emplace_back(*e);
  environment.insert(environment.end(), options.extraEnvironment.begin(), options.extraEnvironment.end());
  std::vector<char*> envp, args;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argvCopy = argv;
  for (auto& a : argvCopy) args.push_back(a.data());
  args.push_back(nullptr);
  const pid_t parent = getpid();

  pid_ = fork();
  if (pid_ < 0) throw systemError("fork");
  if (pid_ == 0) {
    // Dies with the benchmark, however the benchmark ends: nothing keeps running behind it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(outWrite.get(), STDOUT_FILENO);
    dup2(options.writableStdin ? inRead.get() : input.get(), STDIN_FILENO);
    dup2(errors.get(), STDERR_FILENO);
    execvpe(args[0], args.data(), envp.data());
    int err = errno;
    ssize_t ignored = write(execWrite.get(), &err, sizeof(err));
    (void)ignored;
    _exit(127);
  }
  execWrite.reset();
  int err = 0;
  ssize_t n;
  while ((n = read(execRead.get(), &err, sizeof(err))) < 0 && errno == EINTR) {
  }
  if (n == sizeof(err)) {
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    throw Error("cannot start " + argv.front() + ": " + std::strerror(err));
  }
  stdout_ = std::move(outRead);
  stdin_ = std::move(inWrite);
  fcntl(stdout_.get(), F_SETFL, fcntl(stdout_.get(), F_GETFL) | O_NONBLOCK);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      reaped_(other.reaped_),
      status_(other.status_),
      name_(std::move(other.name_)),
      stdout_(std::move(other.stdout_)),
      stdin_(std::move(other.stdin_)),
      buffer_(std::move(other.buffer_)),
      eof_(other.eof_) {}

ChildProcess::~ChildProcess() {
  if (pid_ <= 0 || reaped_) return;
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

bool ChildProcess::fillBuffer(Clock::time_point deadline) {
  while (!eof_) {
    char chunk[4096];
    ssize_t n = read(stdout_.get(), chunk, sizeof(chunk));
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN) {
      eof_ = true;
      return false;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{stdout_.get(), POLLIN, 0};
    poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
  }
  return false;
}

std::optional<std::string> ChildProcess::readLine(std::chrono::milliseconds timeout) {
  Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    if (!fillBuffer(deadline)) {
      if (eof_ && !buffer_.empty()) return std::exchange(buffer_, {});
      return std::nullopt;
    }
  }
}

std::optional<std::string> ChildProcess::awaitLine(std::string_view prefix, std::chrono::milliseconds timeout) {
  Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    std::optional<std::string> line = readLine(left);
    if (!line) return std::nullopt;
    if (line->starts_with(prefix)) return line;
  }
}

std::string ChildProcess::readRest(std::chrono::milliseconds timeout) {
  Clock::time_point deadline = Clock::now() + timeout;
  while (fillBuffer(deadline)) {
  }
  return std::exchange(buffer_, {});
}

void ChildProcess::writeLine(const std::string& line) {
  if (!stdin_) throw Error(name_ + ": stdin is not writable");
  std::string text = line + "\n";
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(stdin_.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw systemError("writing to " + name_);
    done += static_cast<size_t>(n);
  }
}

void ChildProcess::signal(int sig) {
  if (pid_ > 0 && !reaped_) kill(pid_, sig);
}

bool ChildProcess::running() {
  if (pid_ <= 0 || reaped_) return false;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    status_ = status;
    return false;
  }
  return true;
}

int ChildProcess::wait(std::chrono::milliseconds timeout) {
  stdin_.reset();  // a child that reads its stdin until it closes is waiting for this
  Clock::time_point deadline = Clock::now() + timeout;
  while (running()) {
    if (Clock::now() >= deadline) {
      kill(pid_, SIGKILL);
      while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
      reaped_ = true;
      status_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status_;
}

}  // namespace jfrbpf::bench
