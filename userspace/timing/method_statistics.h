#pragma once
// Per-method timing statistics as the agent's stubs keep them (protocol/timing_table.h: minimum 0 = none), and
// the jdk.MethodTiming values JDK 25 derives from them (jdk.jfr.internal.tracing.TimedClass): counts are
// cumulative since timing began; average = (time + invocations / 2) / invocations; minimum and maximum are
// widened to include the average; without any measured time all three are Long.MIN_VALUE ("N/A").
#include <algorithm>
#include <cstdint>

namespace jfrbpf::timing {

struct MethodStats {
  uint64_t invocations = 0;
  uint64_t totalNs = 0;
  uint64_t minNs = 0;  // 0: no invocation yet
  uint64_t maxNs = 0;

  // Adds another stripe's share, or another slot's (a method instrumented twice).
  void merge(const MethodStats& other) {
    invocations += other.invocations;
    totalNs += other.totalNs;
    if (other.minNs != 0 && (minNs == 0 || other.minNs < minNs)) minNs = other.minNs;
    maxNs = std::max(maxNs, other.maxNs);
  }
};

struct MethodTimingValues {
  int64_t invocations = 0;
  int64_t minimum = 0;  // ticks (ns), or kMissing
  int64_t average = 0;
  int64_t maximum = 0;
};

inline constexpr int64_t kMissing = INT64_MIN;

MethodTimingValues timingValues(const MethodStats& stats);

}  // namespace jfrbpf::timing
