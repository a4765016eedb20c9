#include "tests/support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <thread>

namespace jfrbpf::test {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, ChildOptions options) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    setpgid(0, 0);  // its own group: signals to the test's terminal group never reach it
    dup2(fds[1], STDOUT_FILENO);
    if (options.captureStderr) dup2(fds[1], STDERR_FILENO);
    for (const auto& env : options.extraEnv) putenv(const_cast<char*>(env.c_str()));
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  out_ = fds[0];
}

ChildProcess::~ChildProcess() {
  if (!reaped_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_ >= 0) close(out_);
}

std::optional<std::string> ChildProcess::readLine(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{out_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[4096];
    ssize_t n = read(out_, chunk, sizeof(chunk));
    if (n <= 0) {
      if (buffer_.empty()) return std::nullopt;
      std::string line;
      line.swap(buffer_);
      return line;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

std::string ChildProcess::readAll(std::chrono::milliseconds timeout) {
  // In whole reads, not line by line: `jfr print --json` writes hundreds of MB (215 MB took 7.5 s line by line,
  // 0.2 s so). As line by line, `timeout` bounds each wait for more output, and the text ends with a newline.
  std::string all;
  all.swap(buffer_);
  std::vector<char> chunk(1 << 16);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    ssize_t n = read(out_, chunk.data(), chunk.size());
    if (n <= 0) break;
    all.append(chunk.data(), static_cast<size_t>(n));
    deadline = std::chrono::steady_clock::now() + timeout;
  }
  if (!all.empty() && all.back() != '\n') all += '\n';
  return all;
}

void ChildProcess::signal(int signo) { kill(pid_, signo); }

std::optional<int> ChildProcess::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

RunResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
              const std::vector<std::string>& extraEnv) {
  ChildProcess child(argv, {.captureStderr = true, .extraEnv = extraEnv});
  RunResult result;
  result.output = child.readAll(timeout);
  auto code = child.wait(timeout);
  result.exitCode = code ? *code : -1;
  return result;
}

}  // namespace jfrbpf::test
