#include "userspace/record/sampling/sample_costs.h"

#include <numeric>

#include "bpf/sampler_abi.h"

namespace jfrbpf::record {

double sampleCostQuantileNs(std::span<const uint64_t> histogram, double q) {
  uint64_t total = std::accumulate(histogram.begin(), histogram.end(), uint64_t{0});
  if (total == 0) return 0;
  double rank = q * static_cast<double>(total);
  uint64_t below = 0;
  for (size_t bucket = 0; bucket < histogram.size(); ++bucket) {
    uint64_t count = histogram[bucket];
    if (count > 0 && static_cast<double>(below + count) >= rank) {
      double lower = static_cast<double>(bucket) * JFRBPF_COST_BUCKET_NS;
      if (bucket + 1 == histogram.size()) return lower;
      double within = (rank - static_cast<double>(below)) / static_cast<double>(count);
      return lower + within * JFRBPF_COST_BUCKET_NS;
    }
    below += count;
  }
  return static_cast<double>(histogram.size() - 1) * JFRBPF_COST_BUCKET_NS;
}

}  // namespace jfrbpf::record
