// Quantiles of the sampler's per-sample cost histogram: interpolation inside a bucket, the open-ended last
// bucket, and an empty histogram.
#include "userspace/record/sampling/sample_costs.h"

#include <gtest/gtest.h>

#include <vector>

#include "bpf/sampler_abi.h"

namespace jfrbpf::record {
namespace {

std::vector<uint64_t> emptyHistogram() { return std::vector<uint64_t>(JFRBPF_COST_BUCKETS, 0); }

TEST(SampleCosts, EmptyHistogramHasNoQuantiles) {
  EXPECT_EQ(sampleCostQuantileNs(emptyHistogram(), 0.5), 0);
}

TEST(SampleCosts, QuantilesInterpolateInsideTheirBucket) {
  auto histogram = emptyHistogram();
  histogram[40] = 100;  // [1000, 1025) ns
  histogram[80] = 100;  // [2000, 2025) ns
  EXPECT_DOUBLE_EQ(sampleCostQuantileNs(histogram, 0.25), 1000 + 0.5 * JFRBPF_COST_BUCKET_NS);
  EXPECT_DOUBLE_EQ(sampleCostQuantileNs(histogram, 0.5), 1000 + JFRBPF_COST_BUCKET_NS);
  EXPECT_DOUBLE_EQ(sampleCostQuantileNs(histogram, 0.9), 2000 + 0.8 * JFRBPF_COST_BUCKET_NS);
}

TEST(SampleCosts, SlowSamplesInTheLastBucketReadAsItsLowerEdge) {
  auto histogram = emptyHistogram();
  histogram[10] = 1;
  histogram[JFRBPF_COST_BUCKETS - 1] = 9;
  EXPECT_DOUBLE_EQ(sampleCostQuantileNs(histogram, 0.99), (JFRBPF_COST_BUCKETS - 1.0) * JFRBPF_COST_BUCKET_NS);
  EXPECT_DOUBLE_EQ(sampleCostQuantileNs(histogram, 0.05), 10 * JFRBPF_COST_BUCKET_NS + 0.5 * JFRBPF_COST_BUCKET_NS);
}

}  // namespace
}  // namespace jfrbpf::record
