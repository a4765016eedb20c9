#pragma once
// The perf events that drive the BPF sampler, one of two kinds:
//   per thread: PERF_COUNT_SW_TASK_CLOCK on a thread, inherited by the threads it creates — each thread's
//     own CPU time decides when it is sampled, so attribution matches the kernel's CPU accounting exactly
//     (like JDK 25's per-thread CPU timers);
//   per CPU: PERF_COUNT_SW_CPU_CLOCK on a CPU, sampling whatever runs there — one event per CPU whatever
//     the number of threads, but whoever runs when other timers expire together with it is over-sampled.
// A per-CPU event also maps a small ring that carries PERF_RECORD_THROTTLE/UNTHROTTLE (samples go to BPF),
// which is how overflows the kernel suppressed before they reached BPF are counted.
#include <sys/types.h>

#include <cstdint>

#include "base/unique_fd.h"

namespace jfrbpf::record {

class ClockEvent {
 public:
  // Opens a disabled event. Throws jfrbpf::Error.
  static ClockEvent perCpu(int cpu, uint64_t periodNs);
  // Throws jfrbpf::Error; ESRCH (the thread just exited) is reported as Error with kind Target.
  static ClockEvent perThread(pid_t tid, uint64_t periodNs);

  ClockEvent(ClockEvent&& other) noexcept;
  ClockEvent& operator=(ClockEvent&&) = delete;
  ClockEvent(const ClockEvent&) = delete;
  ~ClockEvent();

  int fd() const { return fd_.get(); }
  void enable();
  void disable();
  // A new period, as --max-rate asks for (the events already inherited by new threads keep theirs).
  void setPeriod(uint64_t periodNs);

  // Overflows lost to kernel throttling since the last call (per-CPU events only; 0 otherwise). `nowNs`
  // closes a throttle window that is still open.
  uint64_t takeThrottledOverflows(uint64_t nowNs);

 private:
  ClockEvent(int fd, uint64_t periodNs) : periodNs_(periodNs), fd_(fd) {}
  void mapThrottleRing(int cpu);

  uint64_t periodNs_;
  UniqueFd fd_;
  void* ring_ = nullptr;
  size_t ringBytes_ = 0;
  uint64_t throttledSinceNs_ = 0;  // 0 = not throttled now
};

}  // namespace jfrbpf::record
