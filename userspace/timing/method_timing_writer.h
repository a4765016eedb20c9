#pragma once
// Turns what method timing measured into JFR events: jdk.MethodTrace for each trace record of the BPF
// trace probe (entry time, duration, thread, the caller's stack, the method) and, whenever asked, one batch of
// jdk.MethodTiming (one event per timed method, all with the same startTime, values cumulative since
// timing began, as JDK 25 writes them).
//
// It knows the JVMs' timed methods through their Java models, the JFR recording it writes to, and nothing
// of BPF or stack resolution: the pipeline passes statistics in and resolves stacks through callbacks.
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "bpf/method_timer_abi.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/jvm/java_model.h"
#include "userspace/jvm/metadata_wait.h"
#include "userspace/timing/method_statistics.h"

namespace jfrbpf::timing {

struct TraceCounters {
  uint64_t written = 0;
  uint64_t malformed = 0;       // too short, or stacks larger than the record
  uint64_t unknownMethod = 0;   // a slot no agent reported even after waiting (or a process without a JVM)
  uint64_t callerNotFound = 0;  // the traced frame never showed up: written from below the hook's frames
};

class MethodTimingWriter {
 public:
  // Resolves a record's frames; true when the stack is truncated (it did not reach the thread's root).
  using ResolveStack = std::function<bool(const jfrbpf_sample_record&, std::vector<jfr::StackFrame>&)>;
  using ThreadOf = std::function<jfr::EventThread(const jfrbpf_sample_record&)>;
  // The thread's context a record carries (its text valid until the next call).
  using ContextOf = std::function<jfr::TraceContext(const jfrbpf_sample_record&)>;
  using ReadStats = std::function<MethodStats(uint32_t slot)>;

  MethodTimingWriter(jfr::Recording& out, ResolveStack resolve, ThreadOf threadOf, ContextOf contextOf);

  // The timed methods of JVM `pid` come from `model` (alive as long as this writer).
  void addJvm(pid_t pid, const jvm::JavaModel& model);

  // One record of the traces ring buffer (struct jfrbpf_trace_head + sample record). A trace may overtake
  // the agent's report of its method (the class was just loaded) or of the code it ran (just compiled):
  // it is kept and retried.
  void onTrace(const void* data, size_t size);
  // Retries the traces kept for an unknown method, after the caller read the agents' latest records;
  // with `final`, what is still unknown is counted and dropped.
  void retryPending(bool final = false);
  // What JVM `pid`'s traces that wait hold.
  size_t pendingBytesOf(pid_t pid) const { return pending_.bytesOf(pid); }

  // One jdk.MethodTiming per timed method at `now`; `read` gives a slot's statistics (its JVM's table).
  // Slots that name the same method (a class retransformed twice, or loaded twice) are added up.
  void writeTimings(jfr::Ticks now, const ReadStats& read);

  const TraceCounters& traceCounters() const { return counters_; }
  // Timed methods (not slots) over all JVMs, and their invocations, as of the last writeTimings.
  size_t timedMethodsWritten() const { return lastBatch_; }
  uint64_t invocationsWritten() const { return lastInvocations_; }

 private:
  struct Jvm {
    pid_t pid;
    const jvm::JavaModel* model;
  };
  // kRetry: the method or its frame are not known yet; with `lastChance` the trace is written anyway
  // when only the frame is missing.
  enum class Outcome { kWritten, kMalformed, kRetry };
  Outcome write(const void* data, size_t size, bool lastChance);
  const Jvm* jvmOf(pid_t pid) const;
  jfr::MethodId methodId(const jvm::TimedMethodInfo& method);

  jfr::Recording& out_;
  ResolveStack resolve_;
  ThreadOf threadOf_;
  ContextOf contextOf_;
  std::vector<Jvm> jvms_;
  std::unordered_map<const jvm::TimedMethodInfo*, jfr::MethodId> methodIds_;
  uint32_t constantsGeneration_ = 0;  // of out_, when methodIds_ was filled
  std::vector<jfr::StackFrame> frames_;
  std::unique_ptr<jfrbpf_sample_record> trimmed_;  // ~9 KiB: not on the stack
  std::array<jvm::JavaFrame, 64> inlineScratch_;
  TraceCounters counters_;
  jvm::MetadataWait pending_;  // traces of methods or code the agent had not described yet
  size_t lastBatch_ = 0;
  uint64_t lastInvocations_ = 0;
};

}  // namespace jfrbpf::timing
