#pragma once
// What each target's threads used of the CPU over one file of a recording, by the kernel's accounting:
// counted from when the target's recording (or the file) began, written when the target ends (or the file
// does) as one jfrbpf.ThreadCPUTime per thread, the truth a file's samples are checked against.
#include <sys/types.h>

#include <unordered_map>

#include "formats/jfr/writer/recording.h"
#include "userspace/record/jvm/thread_registry.h"
#include "userspace/record/sampling/thread_cpu_times.h"

namespace jfrbpf::record {

class ThreadCpuAccounting {
 public:
  // `idleThreadsToo`: threads that used no CPU are written as well (with --off-cpu, whose waits are
  // checked against their wall time less their CPU time).
  ThreadCpuAccounting(jfr::Recording& out, ThreadRegistry& threads, bool idleThreadsToo)
      : out_(out), threads_(threads), idleThreadsToo_(idleThreadsToo) {}

  // Process `pid`'s threads' CPU time as its recording began (what its samples are accounted from).
  void begin(pid_t pid, ThreadCpuTimes start) { starts_[pid] = std::move(start); }
  // ... and as it ended: one event per thread alive then. Nothing for a process never begun.
  void write(jfr::Ticks now, pid_t pid, const ThreadCpuTimes& end);
  // The file ends at `now`: each process still alive is written, and counted from `now` in the next file.
  // A process gone already is left to its retirement, which writes what it used.
  void endFile(jfr::Ticks now);

 private:
  jfr::Recording& out_;
  ThreadRegistry& threads_;
  bool idleThreadsToo_;
  std::unordered_map<pid_t, ThreadCpuTimes> starts_;  // of the current file
};

}  // namespace jfrbpf::record
