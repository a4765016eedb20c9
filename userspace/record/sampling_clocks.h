#pragma once
// The set of perf events that drive the sampler for one recording, attached to its BPF program: one
// task-clock event per thread of each target (threads created later inherit one), or one cpu-clock
// event per online CPU. See clock_event.h for the trade-off.
#include <sys/types.h>

#include <cstdint>
#include <set>
#include <vector>

#include "userspace/record/bpf_sampler.h"
#include "userspace/record/clock_event.h"

namespace jfrbpf::record {

enum class ClockMode { PerThread, PerCpu };

class SamplingClocks {
 public:
  // Per CPU: opens and attaches one event per online CPU now. Throws jfrbpf::Error.
  SamplingClocks(ClockMode mode, uint64_t periodNs, BpfSampler& sampler);

  // Per thread: opens and attaches an event on every thread of `pid` (re-listing its threads until no new
  // one appears); later threads inherit. Per CPU: nothing to do. Throws jfrbpf::Error.
  void addProcess(pid_t pid);

  void enable();
  void disable();
  // Overflows the kernel throttled since the last call (per-CPU events report them).
  uint64_t takeThrottledOverflows(uint64_t nowNs);
  size_t eventCount() const { return events_.size(); }

 private:
  void add(ClockEvent event);

  ClockMode mode_;
  uint64_t periodNs_;
  BpfSampler& sampler_;
  std::vector<ClockEvent> events_;
  std::set<pid_t> threadsWithEvents_;
  bool enabled_ = false;
};

}  // namespace jfrbpf::record
