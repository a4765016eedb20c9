#include "userspace/record/sample_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "userspace/timing/probe_sites.h"

namespace jfrbpf::record {
namespace {

// How often the consumer drains the rings when nothing wakes it (the BPF side only does when they fill up).
constexpr int kPollTimeoutMs = 50;
constexpr jfr::Ticks kPeriodicWorkNs = 1'000'000'000;

}  // namespace

SamplePipeline::SamplePipeline(jfr::Recording& out, BpfSampler& sampler, SamplingClocks& clocks, int64_t periodNs,
                               const timing::MethodTimingOptions& timing)
    : out_(out),
      sampler_(sampler),
      clocks_(clocks),
      periodNs_(periodNs),
      kernelSymbols_(symbolize::KernelSymbolizer::shared()),
      threads_(out),
      stacks_(out, *kernelSymbols_, nativeSymbols_),
      ledger_(out, threads_),
      ring_(sampler.ringBufferMapFd(), [this](const void* data, size_t size) { onRecord(data, size); }),
      unwind_(sampler),
      timingOptions_(timing) {
  if (!timing.enabled() || !sampler.methodHooksLoaded()) return;
  timing_ = std::make_unique<timing::MethodTimingWriter>(
      out_, [this](const jfrbpf_sample_record& record, std::vector<jfr::StackFrame>& frames) { stacks_.resolve(record, frames); },
      [this](const jfrbpf_sample_record& record) { return threadOf(record); });
  traceRing_ = std::make_unique<RingBufferReader>(sampler.traceRingBufferMapFd(),
                                                  [this](const void* data, size_t size) { timing_->onTrace(data, size); });
  const jfr::Ticks now = jfr::Recording::now();
  nextTimingBatch_ = timing.timingPeriodNs > 0 ? now + timing.timingPeriodNs : INT64_MAX;
}

void SamplePipeline::addProcess(pid_t pid) {
  processes_.push_back(pid);
  unwind_.syncProcess(pid);
}

void SamplePipeline::addJvm(JvmConnection& jvm) {
  jvms_.push_back(&jvm);
  stacks_.setJavaModel(jvm.pid(), &jvm.model());
  if (timing_) {
    timing_->addJvm(jvm.pid(), jvm.model());
    timingSkipsReported_[jvm.pid()] = jvm.model().timedMethods().skips().size();  // the recorder told those
  }
}

void SamplePipeline::reportTimingSkips(jfr::Ticks now) {
  for (JvmConnection* jvm : jvms_) {
    const std::vector<jvm::TimingSkip>& skips = jvm->model().timedMethods().skips();
    size_t& reported = timingSkipsReported_[jvm->pid()];
    for (; reported < skips.size(); ++reported) {
      const jvm::TimingSkip& skip = skips[reported];
      out_.note(now, "info", "JVM " + std::to_string(jvm->pid()) + ": not instrumented: " + skip.className +
                                 (skip.methodName.empty() ? "" : "::" + skip.methodName + skip.descriptor) + ": " +
                                 skip.reason);
    }
  }
}

void SamplePipeline::writeMethodTimings(jfr::Ticks now) {
  timing_->writeTimings(now, [this](uint32_t slot) { return sampler_.readMethodStats(slot); });
}

void SamplePipeline::reportProbePaths(jfr::Ticks now) {
  for (JvmConnection* jvm : jvms_) {
    // A registered uprobe is an int3 until its first hit, which may optimize it: judge only after hits.
    if (!jvm->timingStarted() ||
        std::find(probePathsReported_.begin(), probePathsReported_.end(), jvm->pid()) != probePathsReported_.end() ||
        !sampler_.methodHooksHit(static_cast<uint32_t>(jvm->pid()))) {
      continue;
    }
    timing::ProbeSiteState state = jvm->probeSiteState();
    if (state == timing::ProbeSiteState::kNop) continue;
    // Unreadable site bytes: the kernel's trampoline page, mapped at the first optimization, still tells.
    if (state == timing::ProbeSiteState::kUnknown && timing::hasUprobeTrampoline(jvm->pid())) {
      state = timing::ProbeSiteState::kOptimized;
    }
    probePathsReported_.push_back(jvm->pid());
    std::string message = "JVM " + std::to_string(jvm->pid()) + ": method hook uprobes: " + timing::describe(state);
    if (state == timing::ProbeSiteState::kTrap) {
      message += ": every timed call traps (~3.5 us); Linux 6.18+ on x86_64 optimizes uprobes on 5-byte NOPs";
      std::fprintf(stderr, "jfrbpf: %s\n", message.c_str());
    }
    out_.note(now, state == timing::ProbeSiteState::kTrap ? "warning" : "info", message);
  }
}

timing::TraceCounters SamplePipeline::traceCounters() const {
  return timing_ ? timing_->traceCounters() : timing::TraceCounters{};
}

size_t SamplePipeline::timedMethodsWritten() const { return timing_ ? timing_->timedMethodsWritten() : 0; }

uint64_t SamplePipeline::timedInvocationsWritten() const { return timing_ ? timing_->invocationsWritten() : 0; }

jfr::ThreadId SamplePipeline::threadOf(const jfrbpf_sample_record& record) {
  auto tgid = static_cast<pid_t>(record.tgid);
  auto tid = static_cast<pid_t>(record.tid);
  if (!threads_.knows(tgid, tid)) {
    // A thread first seen in a sample: give it its Java identity right away if the agent told us one.
    for (JvmConnection* jvm : jvms_) {
      if (jvm->pid() != tgid) continue;
      if (const jvm::JavaThreadInfo* java = jvm->model().threads().byTid(tid, record.time_ns)) {
        threads_.setJavaIdentity(tgid, tid, java->name, java->javaThreadId, java->isVirtual);
      }
    }
  }
  return threads_.threadFor(tgid, tid);
}

void SamplePipeline::serviceJvms(jfr::Ticks now) {
  for (JvmConnection* jvm : jvms_) {
    jvm::JavaSession& session = jvm->session();
    if (!session.running()) continue;
    if (!session.drain()) {
      std::string reason = session.error().empty() ? "the JVM closed the agent channel" : session.error();
      out_.note(now, "info", "JVM " + std::to_string(jvm->pid()) + ": agent session ended: " + reason);
    }
    std::string whyNot;
    if (!jvm->publish(sampler_, whyNot) && !whyNot.empty() && !layoutWarned_) {
      layoutWarned_ = true;
      out_.note(now, "warning", "JVM " + std::to_string(jvm->pid()) + ": Java stack walking unavailable: " + whyNot);
    }
  }
}

void SamplePipeline::onRecord(const void* data, size_t size) {
  if (size < JFRBPF_SAMPLE_HEADER_SIZE) return;
  const auto& record = *static_cast<const jfrbpf_sample_record*>(data);
  if (record.user_depth > JFRBPF_MAX_USER_FRAMES || record.kernel_depth > JFRBPF_MAX_KERNEL_FRAMES) return;
  const size_t words = 2 * static_cast<size_t>(record.user_depth) + record.kernel_depth;
  if (JFRBPF_SAMPLE_HEADER_SIZE + words * sizeof(uint64_t) > size) return;

  stacks_.resolve(record, frames_);
  const bool failed = (record.flags & JFRBPF_SAMPLE_USER_STACK_FAILED) != 0 && frames_.empty();
  const bool truncated = (record.flags & JFRBPF_SAMPLE_USER_STACK_TRUNCATED) != 0;
  jfr::ThreadId thread = threadOf(record);
  out_.cpuTimeSample(static_cast<jfr::Ticks>(record.time_ns), frames_, truncated, thread, failed, periodNs_,
                     /*biased=*/false);
  samples_.fetch_add(1, std::memory_order_relaxed);
  if (failed) failed_.fetch_add(1, std::memory_order_relaxed);
}

// Java threads renamed or started since the last look: keep the Thread constants in step.
void SamplePipeline::refreshJavaThreadNames() {
  for (JvmConnection* jvm : jvms_) {
    jvm->model().threads().forEach([&](const jvm::JavaThreadInfo& java) {
      if (java.tid > 0) threads_.setJavaIdentity(jvm->pid(), java.tid, java.name, java.javaThreadId, java.isVirtual);
    });
  }
}

void SamplePipeline::periodicWork(jfr::Ticks now) {
  refreshJavaThreadNames();
  for (pid_t pid : processes_) unwind_.syncProcess(pid);  // one maps read when nothing changed
  ledger_.reportThreadLosses(now, sampler_.readThreadLosses());
  uint64_t throttled = clocks_.takeThrottledOverflows(static_cast<uint64_t>(now));
  ledger_.reportUnattributed(now, kCauseKernelThrottling, throttled);
  SamplerCounters counters = sampler_.readCounters();
  uint64_t mapFull = counters[JFRBPF_COUNTER_LOST_THREAD_MAP_FULL] + counters[JFRBPF_COUNTER_LOST_SCRATCH];
  if (mapFull > reportedThreadMapFull_) {
    ledger_.reportUnattributed(now, kCauseThreadTableFull, mapFull - reportedThreadMapFull_);
    reportedThreadMapFull_ = mapFull;
  }
  lost_.store(ledger_.total(), std::memory_order_relaxed);
  if (timing_) {
    reportProbePaths(now);
    reportTimingSkips(now);
    if (now >= nextTimingBatch_) {
      writeMethodTimings(now);
      nextTimingBatch_ = now + timingOptions_.timingPeriodNs;
    }
  }
  out_.rotateIfDue(now);
}

void SamplePipeline::runUntil(const std::atomic<bool>& stop) {
  jfr::Ticks nextPeriodic = jfr::Recording::now() + kPeriodicWorkNs;
  while (!stop.load(std::memory_order_acquire)) {
    ring_.poll(kPollTimeoutMs);
    jfr::Ticks now = jfr::Recording::now();
    serviceJvms(now);
    if (traceRing_) {  // after the agents' records, which name the traced methods
      traceRing_->drain();
      timing_->retryPending();
    }
    if (now >= nextPeriodic) {
      periodicWork(now);
      nextPeriodic = now + kPeriodicWorkNs;
    }
  }
}

void SamplePipeline::finish() {
  serviceJvms(jfr::Recording::now());
  ring_.drain();
  if (traceRing_) {
    traceRing_->drain();
    timing_->retryPending(/*final=*/true);
  }
  jfr::Ticks now = jfr::Recording::now();
  periodicWork(now);
  if (timing_) writeMethodTimings(now);  // JFR's endChunk: the recording's last chunk ends here
}

}  // namespace jfrbpf::record
