#include "userspace/timing/method_statistics.h"

#include <algorithm>
#include <limits>

namespace jfrbpf::timing {

namespace {
int64_t clampToLong(uint64_t v) {
  return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                                         : static_cast<int64_t>(v);
}
}  // namespace

MethodTimingValues timingValues(const MethodStats& stats) {
  MethodTimingValues v;
  v.invocations = clampToLong(stats.invocations);
  if (stats.invocations == 0 || stats.totalNs == 0) {
    v.minimum = v.average = v.maximum = kMissing;
    return v;
  }
  // (time + n/2) / n without overflowing for sums near 2^64.
  uint64_t n = stats.invocations;
  uint64_t average = stats.totalNs / n + (stats.totalNs % n + n / 2) / n;
  v.average = clampToLong(average);
  uint64_t minimum = stats.minNs == 0 ? average : std::min(stats.minNs, average);
  uint64_t maximum = stats.maxNs == 0 ? average : std::max(stats.maxNs, average);
  v.minimum = clampToLong(minimum);
  v.maximum = clampToLong(maximum);
  return v;
}

}  // namespace jfrbpf::timing
