#include "userspace/record/session/rate_budget.h"

#include <cstdio>

#include "formats/jfr/writer/durations.h"

namespace jfrbpf::record {

RateBudget::RateBudget(double maxPerSecond, int64_t basePeriodNs, BpfSampler& sampler, SamplingClocks& clocks,
                       SamplePipeline& pipeline)
    : maxPerSecond_(maxPerSecond),
      basePeriodNs_(basePeriodNs),
      sampler_(sampler),
      clocks_(clocks),
      pipeline_(pipeline) {
  if (maxPerSecond > 0) governor_.emplace(maxPerSecond, basePeriodNs);
}

void RateBudget::update(int64_t now, const std::vector<TargetOutput*>& outputs) {
  if (!governor_) return;
  std::optional<int64_t> period = governor_->update(now, samplingTicks(sampler_.readCounters()));
  if (!period) return;
  sampler_.setBudgetPeriod(*period == basePeriodNs_ ? 0 : static_cast<uint64_t>(*period));
  clocks_.setPeriod(static_cast<uint64_t>(*period));
  char why[160];
  std::snprintf(why, sizeof why, "sampling period now %s for --max-rate %.0f/s (the host sampled %.0f/s)",
                jfr::formatDuration(*period).c_str(), maxPerSecond_, governor_->lastRate());
  why_ = why;
  std::fprintf(stderr, "jfrbpf: %s\n", why);
  pipeline_.runOnConsumer([outputs, now, period = *period, why = why_] {
    for (TargetOutput* output : outputs) output->samplingPeriodChanged(now, period, why);
  });
}

void RateBudget::applyTo(TargetOutput& output, int64_t now) const {
  if (governor_ && governor_->periodNs() != basePeriodNs_) output.samplingPeriodChanged(now, periodNs(), why_);
}

}  // namespace jfrbpf::record
