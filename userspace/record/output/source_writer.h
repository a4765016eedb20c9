#pragma once
// What an event source (sources/) writes into one output, beside the CPU samples every output has: the
// records it takes (sample records with its flag, trace records with its hook bits), and its part in the
// output's turns (after the agents' records are read, once a turn, at the end of a file, at the end).
// TargetOutput calls its writers on the consumer thread only; a writer knows the output through
// OutputParts, and counts what it wrote into its source's report.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "bpf/sampler_abi.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/jvm/java_model.h"
#include "userspace/record/jvm/target_jvms.h"
#include "userspace/record/output/event_threads.h"
#include "userspace/record/output/stack_resolver.h"
#include "userspace/record/output/thread_contexts.h"
#include "userspace/record/output/truncation_ledger.h"

namespace jfrbpf::record {

// The parts of one output a writer writes through: its file, who each record is written as, the JVMs whose
// Java frames it shows, their stacks, the count of stacks by how they ended, and the threads' contexts.
struct OutputParts {
  jfr::Recording& out;
  EventThreads& threads;
  TargetJvms& jvms;
  StackResolver& stacks;
  TruncationLedger& truncations;
  ThreadContexts& contexts;
};

class SourceWriter {
 public:
  virtual ~SourceWriter() = default;

  // Sample records with any of these flags (JFRBPF_SAMPLE_*) are this writer's, not CPU samples.
  virtual uint32_t sampleFlags() const { return 0; }
  // One of them, with its stack resolved (or as far as it could be, once its metadata waited long enough).
  virtual void writeSample(const jfrbpf_sample_record&, const ResolvedStack&) {}
  // Whether a record of the traces ring with this hook index (bpf/method_timer_abi.h) is this writer's.
  virtual bool takesTrace(uint32_t /*hookIndex*/) const { return false; }
  virtual void onTrace(const void* /*data*/, size_t /*size*/) {}

  // `model` describes JVM `pid`'s code and classes from now on (alive as long as this writer).
  virtual void addJvm(pid_t /*pid*/, const jvm::JavaModel& /*model*/) {}
  // After a batch of trace records: those that waited for their metadata are tried again.
  virtual void afterTraces() {}
  // The agents' latest records were read (TargetJvms::service).
  virtual void afterAgents(jfr::Ticks /*now*/) {}
  // Once a turn of the consumer.
  virtual void periodicWork(jfr::Ticks /*now*/) {}
  // The output's current file ends at `now` (another follows with --rotate, or the recording ends): what the
  // writer writes once per file goes in.
  virtual void endFile(jfr::Ticks /*now*/) {}
  // The output is finishing: what waits is written as well as it can be (`final`: the last traces are in).
  virtual void drain(bool /*final*/) {}
  // What JVM `pid`'s records that wait for metadata hold (for --memory-limit).
  virtual size_t pendingBytesOf(pid_t /*pid*/) const { return 0; }
};

// The writers of one output, one per event source that writes there (the session makes them from its sources).
using SourceWriters = std::vector<std::unique_ptr<SourceWriter>>;
using MakeSourceWriters = std::function<SourceWriters(const OutputParts& output)>;

}  // namespace jfrbpf::record
