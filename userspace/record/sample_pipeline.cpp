#include "userspace/record/sample_pipeline.h"

#include <algorithm>
#include <chrono>

namespace jfrbpf::record {
namespace {

constexpr int kPollTimeoutMs = 100;
constexpr jfr::Ticks kPeriodicWorkNs = 1'000'000'000;

}  // namespace

SamplePipeline::SamplePipeline(jfr::Recording& out, BpfSampler& sampler, std::vector<CpuClockEvent>& clocks,
                               int64_t periodNs)
    : out_(out),
      sampler_(sampler),
      clocks_(clocks),
      periodNs_(periodNs),
      threads_(out),
      stacks_(out, kernelSymbols_, nativeSymbols_),
      ledger_(out, threads_),
      ring_(sampler.ringBufferMapFd(), [this](const void* data, size_t size) { onRecord(data, size); }) {}

void SamplePipeline::onRecord(const void* data, size_t size) {
  if (size < JFRBPF_SAMPLE_HEADER_SIZE) return;
  const auto& record = *static_cast<const jfrbpf_sample_record*>(data);
  if (record.user_depth > JFRBPF_MAX_USER_FRAMES || record.kernel_depth > JFRBPF_MAX_KERNEL_FRAMES) return;
  const size_t words = 2 * static_cast<size_t>(record.user_depth) + record.kernel_depth;
  if (JFRBPF_SAMPLE_HEADER_SIZE + words * sizeof(uint64_t) > size) return;

  stacks_.resolve(record, frames_);
  const bool failed = (record.flags & JFRBPF_SAMPLE_USER_STACK_FAILED) != 0 && frames_.empty();
  const bool truncated = (record.flags & JFRBPF_SAMPLE_USER_STACK_TRUNCATED) != 0;
  jfr::ThreadId thread = threads_.threadFor(static_cast<pid_t>(record.tgid), static_cast<pid_t>(record.tid));
  out_.cpuTimeSample(static_cast<jfr::Ticks>(record.time_ns), frames_, truncated, thread, failed, periodNs_,
                     /*biased=*/false);
  samples_.fetch_add(1, std::memory_order_relaxed);
  if (failed) failed_.fetch_add(1, std::memory_order_relaxed);
}

void SamplePipeline::periodicWork(jfr::Ticks now) {
  ledger_.reportThreadLosses(now, sampler_.readThreadLosses());
  uint64_t throttled = 0;
  for (CpuClockEvent& clock : clocks_) throttled += clock.takeThrottledOverflows(static_cast<uint64_t>(now));
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
    if (now >= nextPeriodic) {
      periodicWork(now);
      nextPeriodic = now + kPeriodicWorkNs;
    }
  }
}

void SamplePipeline::finish() {
  ring_.drain();
  periodicWork(jfr::Recording::now());
}

}  // namespace jfrbpf::record
