#pragma once
// The consumer side of a recording, run on its own thread: it drains the sampler's rings, routes each
// record to the output of its process (one file for `record -p`, one per JVM for `record --all`), and does
// the periodic work that keeps the accounting exact (per-thread losses, kernel throttling), the native
// unwind tables current, and the chunks and (with --rotate) the files rotating. Processes and outputs may
// be added and retired while it runs: changes are handed over through a small queue and applied on the
// consumer thread.
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "userspace/record/output/target_output.h"
#include "userspace/record/sampling/bpf_sampler.h"
#include "userspace/record/sampling/ring_buffer_reader.h"
#include "userspace/record/sampling/sampling_clocks.h"
#include "userspace/record/sampling/unwind_maps.h"
#include "userspace/record/session/memory_budget.h"

namespace jfrbpf::record {

class SamplePipeline {
 public:
  // `memoryLimit`: --memory-limit, what the caches are sized from and the consumer keeps the loader under.
  // `unwindTables`: where native unwind tables are compiled and kept.
  SamplePipeline(BpfSampler& sampler, SamplingClocks& clocks, size_t memoryLimit, unwind::TableCache& unwindTables);
  ~SamplePipeline();  // stops the consumer if neither stopAndDrain() nor abandon() did
  SamplePipeline(const SamplePipeline&) = delete;
  SamplePipeline& operator=(const SamplePipeline&) = delete;

  const symbolize::KernelSymbols& kernelSymbols() const { return kernelSymbols_; }
  symbolize::ProcessSymbolizer& nativeSymbols() { return nativeSymbols_; }

  // Samples of `pid` go to `output` (which must outlive the pipeline or its retirement); its native unwind
  // tables are loaded before this returns when called before runUntil, else on the consumer thread.
  void addProcess(pid_t pid, TargetOutput& output);
  // Runs `task` on the consumer thread before it handles the next records (at once when it is not
  // running): how the recorder touches an output the consumer may be using.
  void runOnConsumer(std::function<void()> task);
  // The process is gone: forget it. `onRetired` runs on the consumer thread once nothing more can reach
  // its output from the rings (the caller may finish the output there).
  void retireProcess(pid_t pid, std::function<void()> onRetired);

  // Starts the consumer thread; it runs until stopAndDrain() or abandon().
  void start();
  // The end of a recording, in the order exact accounting needs (no clock overflow after the final drain),
  // phase by phase: stopSampling, takeOverFromConsumer, flushOffCpuWaits, drainRemaining, writeFinalCpuTimes.
  void stopAndDrain();
  // After a failure: disables the clocks and stops the consumer; nothing more is drained.
  void abandon();

  uint64_t samples() const { return samples_.load(std::memory_order_relaxed); }
  uint64_t lost() const { return lost_.load(std::memory_order_relaxed); }
  // Losses no file of the recording owns alone: those no thread can be charged with (every file reports
  // them, as each covers the same window), and samples of a process let go before they were read.
  void addUnfiledLossesTo(RecordSummary& summary) const;
  // Where the loader's memory is now, cache by cache. On the consumer thread (runOnConsumer).
  MemoryAccount memoryAccount() const;
  // After stopAndDrain(): the limit, the loader's peak RSS as the budget saw it, and what it had to do.
  void addMemoryTo(RecordSummary& summary) const;

 private:
  struct Change {
    pid_t pid;
    TargetOutput* output;           // add the process
    std::function<void()> retired;  // retire it
    std::function<void()> task;     // or just run this
  };
  void runConsumer();
  void stopConsumer();
  // The stop's phases, in their order:
  // 1. The clocks stop, the off-CPU window ends, and the threads' CPU time is read at that moment (what their
  //    samples are checked against); the BPF programs are detached. Returns those CPU times.
  std::vector<std::pair<pid_t, ThreadCpuTimes>> stopSampling();
  // 2. The consumer thread stops and its queued changes are applied: from here the calling thread owns the
  //    outputs and the JVM sessions (the agents' off-CPU iterators are read through those sessions).
  void takeOverFromConsumer();
  // 3. The off-CPU waits still going on at the stop: by the JVMs' agents where they can, then the rest.
  void flushOffCpuWaits();
  // 4. Whatever the agents and the rings still hold, and the last periodic work (losses, throttling).
  void drainRemaining();
  // 5. Each target thread's CPU time at the stop, into its output.
  void writeFinalCpuTimes(const std::vector<std::pair<pid_t, ThreadCpuTimes>>& cpuEnds);
  void applyChanges(bool withinDrain = false);
  void onSample(const void* data, size_t size);
  void onTrace(const void* data, size_t size);
  void periodicWork(jfr::Ticks now);
  // Keeps the loader under --memory-limit (MemoryBudget::check), from the consumer thread.
  void checkMemory(jfr::Ticks now);
  // A process that has just started maps its libraries over its first moments (a JVM: hundreds of
  // milliseconds): its unwind tables follow at every drain then, not once a second.
  void syncYoungProcesses(jfr::Ticks now);
  std::vector<TargetOutput*> outputs() const;

  BpfSampler& sampler_;
  SamplingClocks& clocks_;
  MemoryBudget memory_;
  symbolize::KernelSymbols kernelSymbols_;  // read in the background from construction
  symbolize::ProcessSymbolizer nativeSymbols_;
  RingBufferReader ring_;
  std::unique_ptr<RingBufferReader> traceRing_;  // with method timing
  unwind::TableCache& unwindTables_;
  UnwindMaps unwind_;
  std::unordered_map<pid_t, TargetOutput*> routes_;
  std::unordered_map<pid_t, jfr::Ticks> youngUntil_;
  uint64_t reportedThreadMapFull_ = 0;
  std::atomic<bool> running_{false};
  std::atomic<bool> stopConsumer_{false};
  std::thread consumer_;
  std::mutex changesMutex_;
  std::vector<Change> changes_;
  std::vector<pid_t> processes_;  // added and not retired, under changesMutex_: what stopAndDrain reads
  std::atomic<uint64_t> samples_{0};
  std::atomic<uint64_t> lost_{0};
  std::atomic<uint64_t> unrouted_{0};
  std::map<std::string, uint64_t> unattributedLost_;  // by cause; consumer thread
};

}  // namespace jfrbpf::record
