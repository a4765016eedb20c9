#pragma once
// One output of a recording: the file (or --rotate's series of files) that some targets' records become
// events in. It turns CPU sample records into events, with their stacks (the resolver's method ids belong to
// its writer) and threads, hands the records of the event sources to their writers (SourceWriter), and keeps
// the file's accounting (losses, truncated stacks, counts). Its parts each have their own concern: the JVMs
// whose Java frames it shows (TargetJvms), the files it writes one after the other (FileRotation), the
// threads' CPU time per file (ThreadCpuAccounting), and who each record is written as (EventThreads), which
// the sources' writers ask directly.
// `jfrbpf record -p` has one output; `record --all` one per JVM.
#include <sys/types.h>

#include <atomic>
#include <map>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/jfr/writer/recording.h"
#include "userspace/jvm/metadata_wait.h"
#include "userspace/otel/process_context.h"
#include "userspace/record/config.h"
#include "userspace/record/files/file_rotation.h"
#include "userspace/record/jvm/jvm_connection.h"
#include "userspace/record/jvm/target_jvms.h"
#include "userspace/record/memory_account.h"
#include "userspace/record/jvm/thread_registry.h"
#include "userspace/record/output/event_threads.h"
#include "userspace/record/output/loss_ledger.h"
#include "userspace/record/output/source_writer.h"
#include "userspace/record/output/stack_resolver.h"
#include "userspace/record/output/thread_contexts.h"
#include "userspace/record/output/thread_cpu_accounting.h"
#include "userspace/record/output/truncation_ledger.h"
#include "userspace/record/sampling/jvm_kernel_side.h"
#include "userspace/record/summary.h"

namespace jfrbpf::record {

class TargetOutput {
 public:
  // With `series` (--rotate), `out` is the first of its files. `writers` makes the event sources' writers.
  TargetOutput(std::unique_ptr<jfr::Recording> out, std::optional<FileSeries> series, JvmKernelSide& sampler,
               const symbolize::KernelSymbols& kernel, symbolize::ProcessSymbolizer& native, int64_t periodNs,
               const MakeSourceWriters& writers = {});

  // A jfrbpf.Note in the file now: `level` "info" or "warning".
  void note(const char* level, const std::string& text);
  // The OpenTelemetry process context target `pid` published, as jfrbpf.ProcessContext; `threadsAt`: where its
  // threads keep their own (otel/thread_context_location.h), when it says they publish one.
  void processContext(pid_t pid, const otel::ProcessContext& context, const std::string& threadsAt);
  // The current file, and how many the output has begun (more than one with --rotate).
  const std::string& path() const { return files_.path(); }
  size_t fileCount() const { return files_.files(); }
  // `jfrbpf dump`: the files written so far, the current one up to its last flushed chunk.
  std::vector<DumpFile> filesForDump() { return files_.filesForDump(); }
  // --off-cpu: the JVMs' agents flush their virtual threads' waits on their next turn; returns how many took it.
  size_t handOffCpuFlush() { return jvms_.handOffCpuFlush(); }
  // For --memory-limit: each JVM whose Java frames are resolved, with what the loader holds for it (its
  // model, and its records waiting for the agent's).
  std::vector<std::pair<pid_t, size_t>> heldBytes() const;
  // The same, split into models and waiting records, and what its file being written and its caches hold,
  // into `account` (MemoryAccount, for `dump --check`).
  void accountMemory(MemoryAccount& account) const;

  // `jvm` (alive as long as this output) is a JVM of this output: its Java frames named, and the sources'
  // writers know its code and classes.
  void addJvm(JvmConnection& jvm);
  // Process `pid` is a JVM whose samples come without Java frames for now (`why`: kJavaFramesPending) or
  // for good (kJavaFramesUnavailable): its stacks that stop short say so (StackResolver::setJavaFramesMissing).
  void setJavaFramesMissing(pid_t pid, StackEnd why) { stacks_.setJavaFramesMissing(pid, why); }
  // The JVM a file records alone, described in every chunk (jdk.JVMInformation).
  void describeJvm(const jfr::JvmInformation& jvm, const jfr::ProcessResource& resource) {
    out_->setJvmInformation(jvm);
    out_->setProcessResource(resource);
  }
  // --push: each file this output finishes whole goes to `sink` as well (FileRotation::sendFinishedTo).
  void sendFinishedFilesTo(std::function<void(const std::string&)> sink) { files_.sendFinishedTo(std::move(sink)); }
  // Process `pid`'s recording begins with its threads' CPU time `start` (what BpfSampler::addTarget was
  // given), before the pipeline routes it here ...
  void beginTarget(pid_t pid, ThreadCpuTimes start) { cpuTimes_.begin(pid, std::move(start)); }
  // ... and ends with `end`: one jfrbpf.ThreadCPUTime per thread alive then, named as the JVM names it.
  void endTarget(jfr::Ticks now, pid_t pid, const ThreadCpuTimes& end);
  // A process exited or was re-exec'd: what waited for its metadata is written, its caches go.
  void forgetProcess(pid_t pid);

  void onSample(const jfrbpf_sample_record& record);
  // A record of the traces ring (a traced call, an allocation sample, a lock wait): its source's writer's.
  void onTrace(const void* data, size_t size);
  // After a batch of traces: those that waited for their method's or class's metadata are tried again.
  void afterTraces();

  // The JVMs serviced (TargetJvms::service); samples that waited for their metadata tried again.
  void serviceJvms(jfr::Ticks now);
  // The memory budget takes `pid`'s Java frames away (said in the file and on the terminal); false if `pid`
  // is not a JVM of this output.
  bool dropJavaFrames(pid_t pid, jfr::Ticks now, const std::string& why);
  void dropCaches() { stacks_.dropCaches(); }

  // Once a turn: thread names, losses, truncation counts, and the sources' writers' own work.
  void periodicWork(jfr::Ticks now, const std::vector<ThreadLoss>& losses);
  void reportUnattributed(jfr::Ticks now, const char* cause, uint64_t count);
  // --context-only: CPU samples outside a context (or a sampled trace) are left out from now on, each thread's
  // reported once a turn as a jfrbpf.SampleLoss of kCauseLeftOutOfContext.
  void keepOnly(ContextOnly which) { contextOnly_ = which; }
  // --max-rate changed the sampling period: the file's settings follow, and a note says why.
  void samplingPeriodChanged(jfr::Ticks now, int64_t periodNs, const std::string& why);
  // Writes the chunk being built out to the file once it is --flush old: what a crash can lose.
  // Finishes the file's chunk once it is --flush old. A thread first seen in a sample that came before its
  // agent's record of it has no Java identity yet: it gets the one the agents gave by now before the chunk
  // with that sample is written.
  void flushIfDue(jfr::Ticks now);
  bool fileDue(jfr::Ticks now) const { return files_.due(now); }
  // Finishes the current file with what is per file (the threads' CPU time, and the writers' per file
  // events) and goes on in the next one. Losses up to `now` must have been reported (periodicWork) before.
  void continueInNextFile(jfr::Ticks now);
  // Drains what is left of the agents and the writers, and closes the file. Throws jfrbpf::Error
  // when this or an earlier file of the recording could not be written whole.
  void finish(jfr::Ticks now, bool finalTraces);
  void abandon() { out_->abandon(); }

  uint64_t samples() const { return samples_.load(std::memory_order_relaxed); }
  uint64_t lost() const { return ledger_.total(); }
  const LossLedger& ledger() const { return ledger_; }
  // Adds this output's samples, losses, stacks and threads to the summary (the sources count their own).
  void addCountsTo(RecordSummary& summary) const;

 private:
  // Whether --context-only keeps a CPU sample in `context`.
  bool kept(const jfr::TraceContext& context) const;
  // The samples left out since the last report, as jfrbpf.SampleLoss events of their threads.
  void reportLeftOut(jfr::Ticks now);
  // Writes `record` with its stack as resolved: a CPU sample, or a source's record (SourceWriter::sampleFlags).
  void writeSample(const jfrbpf_sample_record& record, const ResolvedStack& stack);
  // Samples in Java code the agent has not described yet wait for its records, up to a bound; `all`
  // writes every one of them as it resolves now.
  void retryWaitingSamples(jfr::Ticks now, bool all);

  std::unique_ptr<jfr::Recording> out_;
  int64_t periodNs_;
  ThreadRegistry threads_;
  TargetJvms jvms_;
  FileRotation files_;
  ThreadCpuAccounting cpuTimes_;
  StackResolver stacks_;
  LossLedger ledger_;
  TruncationLedger truncations_;
  EventThreads eventThreads_;
  ThreadContexts contexts_;
  bool printTruncatedWalks_;
  uint64_t javaFramesDropped_ = 0;  // JVMs whose Java frames the memory budget took away
  jvm::MetadataWait waitingSamples_;  // raw records whose Java frames were not all known yet
  std::atomic<uint64_t> samples_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<uint64_t> cpuNs_{0};

  ContextOnly contextOnly_ = ContextOnly::kOff;
  struct LeftOut {
    uint64_t samples = 0;
    uint64_t cpuNs = 0;
  };
  std::map<jfr::ThreadId, LeftOut> leftOut_;  // since the last report
  std::atomic<uint64_t> leftOutTotal_{0};

  SourceWriters writers_;
  uint32_t writerSampleFlags_ = 0;  // the sample flags some writer takes: CPU samples have none of them
};

}  // namespace jfrbpf::record
