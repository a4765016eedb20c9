#pragma once
// Median and spread of repeated measurements: every figure of the benchmark report is one of these.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::bench {

struct Distribution {
  size_t count = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double p10 = 0;  // 10th and 90th percentiles (linear interpolation); equal to min/max for few values
  double p90 = 0;
};

Distribution distributionOf(std::vector<double> values);

// "1.23 µs (min 0.98, max 1.51, n=30)": median first, then the spread; "no data" for an empty one.
std::string describe(const Distribution& d, int decimals, std::string_view unit);

// `value` with `decimals` digits after the point.
std::string fixed(double value, int decimals);

}  // namespace jfrbpf::bench
