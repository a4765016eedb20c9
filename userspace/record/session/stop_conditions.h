#pragma once
// What ends a recording: the duration, SIGINT/SIGTERM (read from a signalfd so no handler races the
// recorder), or every target process gone (pidfds). Targets are pinned by pidfd from the moment the user
// named them: once one exits, its pid may come back as another process, which is never taken for it.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "base/unique_fd.h"
#include "userspace/record/summary.h"

namespace jfrbpf::record {

// Blocks SIGINT and SIGTERM in the calling thread (do it before starting threads, which inherit the mask)
// and restores the previous mask on destruction, dropping the stop signals that are still pending.
class BlockedStopSignals {
 public:
  BlockedStopSignals();
  ~BlockedStopSignals();
  BlockedStopSignals(const BlockedStopSignals&) = delete;
  BlockedStopSignals& operator=(const BlockedStopSignals&) = delete;
  int signalFd() const { return fd_.get(); }
  // Whether a stop signal came and waits to be read (StopConditions::wait reads it).
  bool stopPending() const;

 private:
  UniqueFd fd_;
  sigset_t previous_;
};

// A pidfd on `pid`, opened before anything is done for it. Throws jfrbpf::Error (Target) if there is no such
// process.
UniqueFd pinProcess(pid_t pid);

class StopConditions {
 public:
  StopConditions(const BlockedStopSignals& signals, int64_t deadlineNs /* CLOCK_MONOTONIC, 0 = none */);
  // Watches `pid` through `pinned` (from pinProcess), or through a pidfd opened now (a child of ours, whose
  // pid cannot be reused before we reap it). Throws jfrbpf::Error (Target) if it has already exited.
  void watchProcess(pid_t pid, UniqueFd pinned = {});
  // Throws jfrbpf::Error (Target) if a watched process has exited. Called once everything is set up for the
  // targets by pid: while a pinned process lives its pid cannot be reused, so all of that was for it.
  void requireAlive();
  // Waits at most `timeoutMs`; returns why the recording must stop, or nothing yet.
  std::optional<StopReason> wait(int timeoutMs);
  // The watched processes that exited since the last call: the recording lets them go at once.
  std::vector<pid_t> takeExited() { return std::exchange(exited_, {}); }

 private:
  struct Watched {
    pid_t pid;
    UniqueFd pidFd;
  };
  const BlockedStopSignals& signals_;
  int64_t deadlineNs_;
  std::vector<Watched> watched_;
  std::vector<pid_t> exited_;
};

}  // namespace jfrbpf::record
