#include "userspace/record/sample_pipeline.h"

#include <algorithm>
#include <chrono>

namespace jfrbpf::record {
namespace {

constexpr int kPollTimeoutMs = 100;
constexpr jfr::Ticks kPeriodicWorkNs = 1'000'000'000;

}  // namespace

SamplePipeline::SamplePipeline(jfr::Recording& out, BpfSampler& sampler, SamplingClocks& clocks, int64_t periodNs)
    : out_(out),
      sampler_(sampler),
      clocks_(clocks),
      periodNs_(periodNs),
      kernelSymbols_(symbolize::KernelSymbolizer::shared()),
      threads_(out),
      stacks_(out, *kernelSymbols_, nativeSymbols_),
      ledger_(out, threads_),
      ring_(sampler.ringBufferMapFd(), [this](const void* data, size_t size) { onRecord(data, size); }),
      unwind_(sampler) {}

void SamplePipeline::addProcess(pid_t pid) {
  processes_.push_back(pid);
  unwind_.syncProcess(pid);
}

void SamplePipeline::addJvm(JvmConnection& jvm) {
  jvms_.push_back(&jvm);
  stacks_.setJavaModel(jvm.pid(), &jvm.model());
}

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
  out_.rotateIfDue(now);
}

void SamplePipeline::runUntil(const std::atomic<bool>& stop) {
  jfr::Ticks nextPeriodic = jfr::Recording::now() + kPeriodicWorkNs;
  while (!stop.load(std::memory_order_acquire)) {
    ring_.poll(kPollTimeoutMs);
    jfr::Ticks now = jfr::Recording::now();
    serviceJvms(now);
    if (now >= nextPeriodic) {
      periodicWork(now);
      nextPeriodic = now + kPeriodicWorkNs;
    }
  }
}

void SamplePipeline::finish() {
  serviceJvms(jfr::Recording::now());
  ring_.drain();
  periodicWork(jfr::Recording::now());
}

}  // namespace jfrbpf::record
