#pragma once
// What ends a recording: the duration, SIGINT/SIGTERM (read from a signalfd so no handler races the
// recorder), or every target process gone (pidfds).
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "userspace/base/unique_fd.h"
#include "userspace/record/recorder.h"

namespace jfrbpf::record {

// Blocks SIGINT and SIGTERM in the calling thread (do it before starting threads, which inherit the mask)
// and restores the previous mask on destruction.
class BlockedStopSignals {
 public:
  BlockedStopSignals();
  ~BlockedStopSignals();
  BlockedStopSignals(const BlockedStopSignals&) = delete;
  BlockedStopSignals& operator=(const BlockedStopSignals&) = delete;
  int signalFd() const { return fd_.get(); }

 private:
  UniqueFd fd_;
  sigset_t previous_;
};

class StopConditions {
 public:
  StopConditions(const BlockedStopSignals& signals, int64_t deadlineNs /* CLOCK_MONOTONIC, 0 = none */);
  // Watches `pid`; throws jfrbpf::Error if it is already gone.
  void watchProcess(pid_t pid);
  // Waits at most `timeoutMs`; returns why the recording must stop, or nothing yet.
  std::optional<StopReason> wait(int timeoutMs);

 private:
  const BlockedStopSignals& signals_;
  int64_t deadlineNs_;
  std::vector<UniqueFd> pidFds_;
};

}  // namespace jfrbpf::record
