#pragma once
// --max-rate at work in a recording: the governor's period applied to the BPF sampler and the clocks, and
// told to every output (its settings, a note) and on stderr.
#include <optional>
#include <string>
#include <vector>

#include "userspace/record/output/target_output.h"
#include "userspace/record/sampling/bpf_sampler.h"
#include "userspace/record/sampling/rate_governor.h"
#include "userspace/record/sampling/sampling_clocks.h"
#include "userspace/record/session/sample_pipeline.h"

namespace jfrbpf::record {

class RateBudget {
 public:
  // maxPerSecond 0: no budget, and update() does nothing.
  RateBudget(double maxPerSecond, int64_t basePeriodNs, BpfSampler& sampler, SamplingClocks& clocks,
             SamplePipeline& pipeline);

  // From the recorder's main loop: `outputs` are told on the consumer thread when the period changes.
  void update(int64_t now, const std::vector<TargetOutput*>& outputs);
  // An output that begins while a longer period is in force (before the pipeline routes to it).
  void applyTo(TargetOutput& output, int64_t now) const;
  int64_t periodNs() const { return governor_ ? governor_->periodNs() : basePeriodNs_; }

 private:
  std::optional<RateGovernor> governor_;
  double maxPerSecond_;
  int64_t basePeriodNs_;
  BpfSampler& sampler_;
  SamplingClocks& clocks_;
  SamplePipeline& pipeline_;
  std::string why_;  // of the period in force
};

}  // namespace jfrbpf::record
