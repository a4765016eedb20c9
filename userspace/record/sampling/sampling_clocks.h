#pragma once
// The set of perf events that drive the sampler for one recording, attached to its BPF program: one
// task-clock event per thread of each target (threads created later inherit one), or one cpu-clock
// event per online CPU. See clock_event.h for the trade-off. Processes may be added and removed while the
// recording runs (record --all); every method is safe to call from the recorder's and the consumer's thread.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "userspace/record/sampling/bpf_sampler.h"
#include "userspace/record/sampling/clock_event.h"

namespace jfrbpf::record {

enum class ClockMode { PerThread, PerCpu };

class SamplingClocks {
 public:
  // Per CPU: opens and attaches one event per online CPU now. Throws jfrbpf::Error.
  SamplingClocks(ClockMode mode, uint64_t periodNs, BpfSampler& sampler);
  ~SamplingClocks();
  SamplingClocks(const SamplingClocks&) = delete;
  SamplingClocks& operator=(const SamplingClocks&) = delete;

  // Per thread: opens and attaches an event on every thread of `pid` (re-listing its threads until no new
  // one appears); later threads inherit. Per CPU: nothing to do. Throws jfrbpf::Error.
  void addProcess(pid_t pid);
  // Closes the events of an exited process.
  void removeProcess(pid_t pid);

  void enable();
  void disable();
  // Every clock's period from now on, the clocks of processes added later included (--max-rate).
  void setPeriod(uint64_t periodNs);
  // Overflows the kernel throttled since the last call (per-CPU events report them).
  uint64_t takeThrottledOverflows(uint64_t nowNs);

 private:
  struct Attached {
    ClockEvent event;
    bpf_link* link;
    pid_t tid;  // per thread: whose clock it is (0 per CPU)
  };
  void attach(std::vector<Attached>& group, ClockEvent event, pid_t tid = 0);
  void release(std::vector<Attached>& group);

  ClockMode mode_;
  uint64_t periodNs_;
  BpfSampler& sampler_;
  std::mutex mutex_;
  std::vector<Attached> cpuEvents_;
  std::map<pid_t, std::vector<Attached>> threadEvents_;  // by process
  bool enabled_ = false;
};

}  // namespace jfrbpf::record
