#pragma once
// One PERF_COUNT_SW_CPU_CLOCK sampling event per CPU: the clock that drives the BPF sampler. Its small
// mmapped ring carries only PERF_RECORD_THROTTLE/UNTHROTTLE records (samples go to BPF), which is how we
// learn about overflows the kernel suppressed before they ever reached BPF.
#include <cstdint>

#include "userspace/base/unique_fd.h"

namespace jfrbpf::record {

class CpuClockEvent {
 public:
  // Opens a disabled event on `cpu` that overflows every `periodNs` of CPU time. Throws jfrbpf::Error.
  CpuClockEvent(int cpu, uint64_t periodNs);
  CpuClockEvent(CpuClockEvent&& other) noexcept;
  CpuClockEvent& operator=(CpuClockEvent&&) = delete;
  CpuClockEvent(const CpuClockEvent&) = delete;
  ~CpuClockEvent();

  int fd() const { return fd_.get(); }
  int cpu() const { return cpu_; }
  void enable();
  void disable();

  // Overflows lost to kernel throttling since the last call (read from THROTTLE/UNTHROTTLE records).
  // `nowNs` closes a throttle window that is still open.
  uint64_t takeThrottledOverflows(uint64_t nowNs);

 private:
  int cpu_;
  uint64_t periodNs_;
  UniqueFd fd_;
  void* ring_ = nullptr;
  size_t ringBytes_ = 0;
  uint64_t throttledSinceNs_ = 0;  // 0 = not throttled now
};

}  // namespace jfrbpf::record
