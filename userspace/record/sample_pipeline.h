#pragma once
// The consumer side of a recording, run on its own thread: ring-buffer records -> JFR events, plus the
// periodic work that keeps the accounting exact (per-thread losses, kernel throttling) and rotates chunks.
// With method timing, also the traces ring (jdk.MethodTrace) and the jdk.MethodTiming batches: every
// --timing-period and always when the recording ends.
#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "formats/jfr/writer/recording.h"
#include "userspace/record/bpf_sampler.h"
#include "userspace/record/sampling_clocks.h"
#include "userspace/record/jvm_connection.h"
#include "userspace/record/loss_ledger.h"
#include "userspace/record/ring_buffer_reader.h"
#include "userspace/record/stack_resolver.h"
#include "userspace/record/thread_registry.h"
#include "userspace/record/unwind_maps.h"
#include "userspace/timing/method_timing_options.h"
#include "userspace/timing/method_timing_writer.h"

namespace jfrbpf::record {

class SamplePipeline {
 public:
  SamplePipeline(jfr::Recording& out, BpfSampler& sampler, SamplingClocks& clocks, int64_t periodNs,
                 const timing::MethodTimingOptions& timing = {});

  // Java frames and thread names of this JVM come from `jvm` from now on (call before runUntil).
  void addJvm(JvmConnection& jvm);
  // Loads the native unwind tables of `pid` now and keeps them in step with its mappings (before runUntil).
  void addProcess(pid_t pid);
  UnwindMapsStats unwindStats() const { return unwind_.stats(); }

  // Consumes until `stop` is set, then drains what is left and writes the final loss reports.
  // Call finish() only after the perf events are disabled, so nothing arrives afterwards.
  void runUntil(const std::atomic<bool>& stop);
  void finish();

  uint64_t samples() const { return samples_.load(std::memory_order_relaxed); }
  uint64_t failedStacks() const { return failed_.load(std::memory_order_relaxed); }
  uint64_t lost() const { return lost_.load(std::memory_order_relaxed); }
  const LossLedger& ledger() const { return ledger_; }
  size_t threads() const { return threads_.size(); }
  // Method timing, once finish() ran: traces written and lost on the way; timed methods and their
  // invocations in the last batch.
  timing::TraceCounters traceCounters() const;
  size_t timedMethodsWritten() const;
  uint64_t timedInvocationsWritten() const;

 private:
  void onRecord(const void* data, size_t size);
  void periodicWork(jfr::Ticks now);
  void serviceJvms(jfr::Ticks now);
  void refreshJavaThreadNames();
  jfr::ThreadId threadOf(const jfrbpf_sample_record& record);
  void writeMethodTimings(jfr::Ticks now);
  // Tells, once per JVM, whether its hook uprobes run on the kernel's fast path.
  void reportProbePaths(jfr::Ticks now);
  // Methods the agents left alone since the last look (classes loaded during the recording).
  void reportTimingSkips(jfr::Ticks now);

  jfr::Recording& out_;
  BpfSampler& sampler_;
  SamplingClocks& clocks_;
  int64_t periodNs_;
  std::shared_ptr<const symbolize::KernelSymbolizer> kernelSymbols_;
  symbolize::ProcessSymbolizer nativeSymbols_;
  ThreadRegistry threads_;
  StackResolver stacks_;
  LossLedger ledger_;
  RingBufferReader ring_;
  std::vector<JvmConnection*> jvms_;
  UnwindMaps unwind_;
  std::vector<pid_t> processes_;
  bool layoutWarned_ = false;
  std::vector<jfr::StackFrame> frames_;  // reused for every sample
  uint64_t reportedThreadMapFull_ = 0;
  std::atomic<uint64_t> samples_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<uint64_t> lost_{0};

  timing::MethodTimingOptions timingOptions_;
  std::unique_ptr<timing::MethodTimingWriter> timing_;  // null without method timing
  std::unique_ptr<RingBufferReader> traceRing_;
  jfr::Ticks nextTimingBatch_ = 0;
  std::vector<pid_t> probePathsReported_;
  std::unordered_map<pid_t, size_t> timingSkipsReported_;  // per JVM: skips already in notes
};

}  // namespace jfrbpf::record
