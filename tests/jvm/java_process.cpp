#include "tests/jvm/java_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "userspace/proc/comm.h"
#include "userspace/proc/files.h"
#include "userspace/proc/paths.h"
#include "userspace/proc/process_dir.h"
#include "userspace/proc/stat.h"

namespace jfrbpf::jvm::test {

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  char path[] = "/tmp/jfrbpf-jvmtest-stderr-XXXXXX";
  int err = mkstemp(path);
  if (err < 0) throw std::runtime_error("mkstemp failed");
  stderrPath_ = path;
  int pipeFds[2];
  if (pipe2(pipeFds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(pipeFds[1], STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    close(err);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, STDIN_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  close(pipeFds[1]);
  close(err);
  stdout_ = pipeFds[0];
}

ChildProcess::~ChildProcess() {
  if (!exited_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (stdout_ >= 0) close(stdout_);
  unlink(stderrPath_.c_str());
}

std::optional<std::string> ChildProcess::readLine(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    size_t newline = buffered_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      return line;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{stdout_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[4096];
    ssize_t n = read(stdout_, chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    buffered_.append(chunk, static_cast<size_t>(n));
  }
}

bool ChildProcess::waitForLine(const std::string& prefix, std::chrono::milliseconds timeout,
                               std::vector<std::string>& seen) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    std::optional<std::string> line = readLine(left);
    if (!line) return false;
    seen.push_back(*line);
    if (line->rfind(prefix, 0) == 0) return true;
  }
}

int ChildProcess::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exited_ = true;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      exited_ = true;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string ChildProcess::stdoutRest(std::chrono::milliseconds timeout) {
  std::string all;
  while (std::optional<std::string> line = readLine(timeout)) all += *line + "\n";
  return all + buffered_;
}

std::string ChildProcess::stderrText() const {
  std::ifstream in(stderrPath_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int runCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout, std::string& output) {
  ChildProcess child(argv);
  output = child.stdoutRest(timeout);
  int status = child.wait(timeout);
  output += child.stderrText();
  return status;
}

long threadCpuTicks(pid_t pid, pid_t tid) {
  proc::FileData text = proc::readFileAt(AT_FDCWD, proc::taskPath(pid, tid, "stat").c_str(), 4096);
  std::optional<proc::ProcStat> stat = text.ok() ? proc::parseStat(text.bytes) : std::nullopt;
  if (!stat) return -1;
  return static_cast<long>(stat->userTicks + stat->systemTicks);
}

std::string threadComm(pid_t pid, pid_t tid) { return proc::readThreadComm(pid, tid); }

std::vector<pid_t> threadsNamed(pid_t pid, const std::string& comm) {
  std::vector<pid_t> found;
  for (pid_t tid : proc::listTasks(pid)) {
    if (threadComm(pid, tid) == comm) found.push_back(tid);
  }
  return found;
}

}  // namespace jfrbpf::jvm::test
