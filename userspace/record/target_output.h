#pragma once
// One output file of a recording and everything that is per file: the JFR writer, its Thread constants,
// the stack resolver (its method ids belong to that writer), the loss ledger, method timing, and the JVMs
// whose Java frames it shows. `jfrbpf record -p` has one; `record --all` one per JVM.
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/jfr/writer/recording.h"
#include "userspace/jvm/metadata_wait.h"
#include "userspace/record/bpf_sampler.h"
#include "userspace/record/dump_channel.h"
#include "userspace/record/file_series.h"
#include "userspace/record/jvm_connection.h"
#include "userspace/record/loss_ledger.h"
#include "userspace/record/recorder.h"
#include "userspace/record/stack_resolver.h"
#include "userspace/record/thread_cpu_times.h"
#include "userspace/record/thread_registry.h"
#include "userspace/record/truncation_ledger.h"
#include "userspace/timing/method_timing_options.h"
#include "userspace/timing/method_timing_writer.h"

namespace jfrbpf::record {

class TargetOutput {
 public:
  TargetOutput(std::unique_ptr<jfr::Recording> out, BpfSampler& sampler, const symbolize::KernelSymbolizer& kernel,
               symbolize::ProcessSymbolizer& native, int64_t periodNs, const timing::MethodTimingOptions& timing);

  jfr::Recording& recording() { return *out_; }
  void addJvm(JvmConnection& jvm);
  // Process `pid` is a JVM whose samples come without Java frames for now (`why`: kJavaFramesPending) or
  // for good (kJavaFramesUnavailable): its stacks that stop short say so (StackResolver::setJavaFramesMissing).
  void setJavaFramesMissing(pid_t pid, StackEnd why) { stacks_.setJavaFramesMissing(pid, why); }
  // Process `pid`'s threads' CPU time when its recording began (what BpfSampler::addTarget was given).
  // Before the pipeline routes the process here.
  void setThreadCpuStart(pid_t pid, ThreadCpuTimes start);
  // ... and when it ended: one jfrbpf.ThreadCPUTime per thread alive then.
  void writeThreadCpuTimes(jfr::Ticks now, pid_t pid, const ThreadCpuTimes& end);
  bool hasJvm(pid_t pid) const;

  void onSample(const jfrbpf_sample_record& record);
  void onTrace(const void* data, size_t size);
  bool timesMethods() const { return timing_ != nullptr; }

  // Drains the agents' channels and keeps the walker's tables of each JVM current.
  void serviceJvms(jfr::Ticks now);
  // The memory budget (memory_budget.h): the bytes of each JVM model still in use, and taking one JVM's Java
  // frames away (said in the file and on the terminal); false if `pid` is not a JVM of this output.
  std::vector<std::pair<pid_t, size_t>> javaModelBytes() const;
  bool dropJavaFrames(pid_t pid, jfr::Ticks now, const std::string& why);
  void dropCaches() { stacks_.dropCaches(); }
  // As the recording stops with --off-cpu: hands each of its JVMs' agents the flush of that JVM's waits
  // (JvmConnection::handOffCpuFlush); returns how many took it.
  size_t handOffCpuFlushToAgents();
  void afterTraces();
  void periodicWork(jfr::Ticks now, const std::vector<ThreadLoss>& losses);
  // Writes the chunk being built out to the file once it is --flush old: what a crash can lose.
  void flushIfDue(jfr::Ticks now);
  // --rotate: the recording goes on in `series`' files, of which the current one is the first.
  void rotateThrough(FileSeries series);
  bool fileDue(jfr::Ticks now) const;
  // Finishes the current file with what is per file (the threads' CPU time and the method timings over
  // it) and goes on in the next one. Losses up to `now` must have been reported (periodicWork) before.
  void continueInNextFile(jfr::Ticks now);
  size_t files() const { return files_; }
  // jfrbpf dump: everything recorded so far written out, then this output's files (the finished ones of its
  // series still in the directory, oldest first, and the current one), opened.
  std::vector<DumpFile> filesForDump();
  const std::string& path() const { return out_->path(); }  // of the current file
  const std::optional<FileSeries>& fileSeries() const { return series_; }
  void reportUnattributed(jfr::Ticks now, const char* cause, uint64_t count);
  // --max-rate changed the sampling period: the file's settings follow, and a note says why.
  void samplingPeriodChanged(jfr::Ticks now, int64_t periodNs, const std::string& why);
  // Drains what is left of the agents, writes the last timings and closes the file. Throws jfrbpf::Error
  // when this or an earlier file of the recording could not be written whole.
  void finish(jfr::Ticks now, bool finalTraces);
  void abandon() { out_->abandon(); }
  void forgetProcess(pid_t pid);

  uint64_t samples() const { return samples_.load(std::memory_order_relaxed); }
  uint64_t failedStacks() const { return failed_.load(std::memory_order_relaxed); }
  uint64_t sampledCpuNs() const { return cpuNs_.load(std::memory_order_relaxed); }  // their samplingPeriod, summed
  uint64_t offCpuSamples() const { return offCpuSamples_.load(std::memory_order_relaxed); }
  uint64_t offCpuNs() const { return offCpuNs_.load(std::memory_order_relaxed); }  // their weights, summed
  uint64_t lost() const { return ledger_.total(); }
  const LossLedger& ledger() const { return ledger_; }
  const TruncationLedger& truncations() const { return truncations_; }
  uint64_t threads() const { return threads_.everSeen(); }
  size_t jvmCount() const { return jvms_.size(); }
  // Adds this file's samples, losses, truncated stacks and threads to the recording's summary.
  void addCountsTo(RecordSummary& summary) const;
  timing::TraceCounters traceCounters() const;
  size_t timedMethodsWritten() const;
  uint64_t timedInvocationsWritten() const;

 private:
  // Says `text` on the terminal and in the file (a jfrbpf.Note warning).
  void warn(jfr::Ticks now, const std::string& text);
  // Writes `record` with its stack as resolved.
  void writeSample(const jfrbpf_sample_record& record, const ResolvedStack& stack);
  void writeOffCpuSample(const jfrbpf_sample_record& record, const ResolvedStack& stack);
  // Samples in Java code the agent has not described yet wait for its records, up to a bound; `all`
  // writes every one of them as it resolves now.
  void retryWaitingSamples(jfr::Ticks now, bool all);
  jfr::ThreadId threadOf(const jfrbpf_sample_record& record);
  void refreshJavaThreadNames();
  void writeMethodTimings(jfr::Ticks now);
  // Tells, once per JVM, whether its trace uprobe runs on the kernel's fast path.
  void reportProbePaths(jfr::Ticks now);
  // Methods the agents left alone since the last look (classes loaded during the recording).
  void reportTimingSkips(jfr::Ticks now);

  std::unique_ptr<jfr::Recording> out_;
  BpfSampler& sampler_;
  int64_t periodNs_;
  ThreadRegistry threads_;
  StackResolver stacks_;
  LossLedger ledger_;
  TruncationLedger truncations_;
  bool printTruncatedWalks_;
  std::vector<JvmConnection*> jvms_;
  std::unordered_map<pid_t, ThreadCpuTimes> cpuStarts_;  // of the current file
  std::optional<FileSeries> series_;
  jfr::Ticks fileOpened_ = 0;
  size_t files_ = 1;
  size_t filesIncomplete_ = 0;  // finished files that miss chunks, or were not renamed into place
  std::string firstFileError_;
  bool layoutWarned_ = false;
  uint64_t javaFramesDropped_ = 0;  // JVMs whose Java frames the memory budget took away
  jvm::MetadataWait waitingSamples_;  // raw records whose Java frames were not all known yet
  std::atomic<uint64_t> samples_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<uint64_t> cpuNs_{0};
  std::atomic<uint64_t> offCpuSamples_{0};
  std::atomic<uint64_t> offCpuNs_{0};

  timing::MethodTimingOptions timingOptions_;
  std::unique_ptr<timing::MethodTimingWriter> timing_;  // null without method timing
  jfr::Ticks nextTimingBatch_ = 0;
  jfr::Ticks nextForgetGone_ = 0;
  std::vector<pid_t> probePathsReported_;
  std::unordered_map<pid_t, size_t> timingSkipsReported_;  // per JVM: skips already in notes
};

}  // namespace jfrbpf::record
