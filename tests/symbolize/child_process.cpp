#include "tests/symbolize/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

extern char** environ;

namespace jfrbpf::symbolize::test {

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  int input[2];
  int output[2];
  if (pipe2(input, O_CLOEXEC) != 0 || pipe2(output, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  int error = posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(input[0]);
  close(output[1]);
  toChild_ = input[1];
  fromChild_ = output[0];
  if (error != 0) {
    pid_ = -1;
    throw std::runtime_error("cannot start " + argv[0]);
  }
}

ChildProcess::~ChildProcess() {
  if (toChild_ >= 0) close(toChild_);  // EOF on stdin: the helper exits by itself
  if (pid_ > 0) {
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      usleep(10'000);
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (fromChild_ >= 0) close(fromChild_);
}

void ChildProcess::send(const std::string& line) {
  std::string text = line + "\n";
  if (write(toChild_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    throw std::runtime_error("cannot write to the helper process");
  }
}

std::optional<std::string> ChildProcess::readLine(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    if (size_t newline = buffered_.find('\n'); newline != std::string::npos) {
      std::string line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      return line;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd pfd{fromChild_, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
    char chunk[4096];
    ssize_t got = read(fromChild_, chunk, sizeof chunk);
    if (got <= 0) return std::nullopt;
    buffered_.append(chunk, static_cast<size_t>(got));
  }
}

std::optional<std::map<std::string, std::string>> ChildProcess::readUntilReady(std::string& error,
                                                                             std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::map<std::string, std::string> values;
  for (;;) {
    std::optional<std::string> line = readLine(deadline);
    if (!line) {
      error = "helper did not answer (timeout or exit)";
      return std::nullopt;
    }
    if (*line == "ready") return values;
    if (line->rfind("error", 0) == 0) {
      error = *line;
      return std::nullopt;
    }
    size_t space = line->find(' ');
    if (space != std::string::npos) values[line->substr(0, space)] = line->substr(space + 1);
  }
}

uint64_t parseAddress(const std::string& text) { return std::strtoull(text.c_str(), nullptr, 16); }

}  // namespace jfrbpf::symbolize::test
