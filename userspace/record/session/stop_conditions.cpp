#include "userspace/record/session/stop_conditions.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <string>

#include "base/error.h"

namespace jfrbpf::record {
namespace {

int64_t monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

BlockedStopSignals::BlockedStopSignals() {
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGHUP);
  if (pthread_sigmask(SIG_BLOCK, &stopSignals, &previous_) != 0) throw Error("cannot block SIGINT/SIGTERM");
  int fd = signalfd(-1, &stopSignals, SFD_CLOEXEC | SFD_NONBLOCK);
  if (fd < 0) throw systemError("signalfd");
  fd_.reset(fd);
}

BlockedStopSignals::~BlockedStopSignals() {
  // A second SIGINT or SIGTERM while the recording was being finished asked for what was being done: it must
  // not kill the process the moment it is unblocked, before the summary is printed.
  signalfd_siginfo info{};
  while (read(fd_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
  }
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

bool BlockedStopSignals::stopPending() const {
  pollfd fd{fd_.get(), POLLIN, 0};
  return poll(&fd, 1, 0) > 0;
}

StopConditions::StopConditions(const BlockedStopSignals& signals, int64_t deadlineNs)
    : signals_(signals), deadlineNs_(deadlineNs) {}

UniqueFd pinProcess(pid_t pid) {
  UniqueFd fd(pid > 0 ? static_cast<int>(syscall(SYS_pidfd_open, pid, 0)) : -1);
  if (!fd && (pid <= 0 || errno == ESRCH || errno == EINVAL || errno == ENOENT)) {
    throw Error("no process with pid " + std::to_string(pid) + " (check it with ps; `jfrbpf list` shows JVMs)",
                ErrorKind::Target);
  }
  if (!fd) throw systemError("pidfd_open(" + std::to_string(pid) + ")");
  return fd;
}

void StopConditions::watchProcess(pid_t pid, UniqueFd pinned) {
  if (!pinned) {
    pinned.reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
    if (!pinned && errno != ESRCH) throw systemError("pidfd_open(" + std::to_string(pid) + ")");
  }
  watched_.push_back({pid, std::move(pinned)});
  requireAlive();
}

void StopConditions::requireAlive() {
  for (const Watched& process : watched_) {
    pollfd fd{process.pidFd.get(), POLLIN, 0};
    // A pidfd turns readable when its process exits (a zombie included), and never again becomes unreadable.
    if (!process.pidFd || poll(&fd, 1, 0) != 0) {
      throw Error("process " + std::to_string(process.pid) + " exited before the recording started",
                  ErrorKind::Target);
    }
  }
}

std::optional<StopReason> StopConditions::wait(int timeoutMs) {
  if (deadlineNs_ > 0) {
    int64_t left = deadlineNs_ - monotonicNs();
    if (left <= 0) return StopReason::Duration;
    timeoutMs = static_cast<int>(std::min<int64_t>(timeoutMs, (left + 999'999) / 1'000'000));
  }
  std::vector<pollfd> fds;
  fds.push_back({signals_.signalFd(), POLLIN, 0});
  for (const Watched& process : watched_) fds.push_back({process.pidFd.get(), POLLIN, 0});
  int ready = poll(fds.data(), fds.size(), timeoutMs);
  if (ready > 0) {
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info{};
      if (read(signals_.signalFd(), &info, sizeof(info)) == sizeof(info)) {
        return info.ssi_signo == SIGINT ? StopReason::Interrupted : StopReason::Terminated;
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP)) {
        exited_.push_back(watched_[i - 1].pid);
        watched_[i - 1].pidFd.reset();  // stop watching: a readable pidfd stays readable
      }
    }
    std::erase_if(watched_, [](const Watched& process) { return !process.pidFd; });
    if (watched_.empty()) return StopReason::TargetsExited;
  }
  if (deadlineNs_ > 0 && monotonicNs() >= deadlineNs_) return StopReason::Duration;
  return std::nullopt;
}

}  // namespace jfrbpf::record
