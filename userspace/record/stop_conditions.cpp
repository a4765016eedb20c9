#include "userspace/record/stop_conditions.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <string>

#include "userspace/base/error.h"

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

BlockedStopSignals::~BlockedStopSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

StopConditions::StopConditions(const BlockedStopSignals& signals, int64_t deadlineNs)
    : signals_(signals), deadlineNs_(deadlineNs) {}

void StopConditions::watchProcess(pid_t pid) {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) {
    if (errno == ESRCH) throw Error("process " + std::to_string(pid) + " exited before the recording started",
                                     ErrorKind::Target);
    throw systemError("pidfd_open(" + std::to_string(pid) + ")");
  }
  pidFds_.emplace_back(fd);
}

std::optional<StopReason> StopConditions::wait(int timeoutMs) {
  if (deadlineNs_ > 0) {
    int64_t left = deadlineNs_ - monotonicNs();
    if (left <= 0) return StopReason::Duration;
    timeoutMs = static_cast<int>(std::min<int64_t>(timeoutMs, (left + 999'999) / 1'000'000));
  }
  std::vector<pollfd> fds;
  fds.push_back({signals_.signalFd(), POLLIN, 0});
  for (const UniqueFd& pidFd : pidFds_) fds.push_back({pidFd.get(), POLLIN, 0});
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
        pidFds_[i - 1].reset();  // stop watching: a closed pidfd never reports again
      }
    }
    std::erase_if(pidFds_, [](const UniqueFd& fd) { return !fd; });
    if (pidFds_.empty()) return StopReason::TargetsExited;
  }
  if (deadlineNs_ > 0 && monotonicNs() >= deadlineNs_) return StopReason::Duration;
  return std::nullopt;
}

}  // namespace jfrbpf::record
