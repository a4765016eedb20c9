#pragma once
// Quantiles of the sampler's per-sample BPF time (SamplerConfig::measureSampleCost), read from its histogram
// of JFRBPF_COST_BUCKET_NS-wide buckets.
#include <cstdint>
#include <span>

namespace jfrbpf::record {

// The q-quantile (0 < q < 1) in nanoseconds, interpolated inside its bucket; 0 for an empty histogram. The
// last bucket holds every slower sample, so a quantile that falls in it reads as its lower edge.
double sampleCostQuantileNs(std::span<const uint64_t> histogram, double q);

}  // namespace jfrbpf::record
