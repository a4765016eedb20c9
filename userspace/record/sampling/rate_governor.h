#pragma once
// --max-rate: a host-wide budget of samples per second that holds however many JVMs and threads run, by
// lengthening the sampling period when the host's sampling ticks exceed it and shortening it again (never
// below the period asked for) when they fall well under. Each sample still stands for the CPU time its
// thread used since its previous one, so weights stay right; the period in force is in each file's
// settings and each sample's samplingPeriod.
#include <cstdint>
#include <optional>

namespace jfrbpf::record {

class RateGovernor {
 public:
  RateGovernor(double maxPerSecond, int64_t basePeriodNs);

  // Given the host's sampling ticks so far at `now` (CLOCK_MONOTONIC ns): the period to sample at from now
  // on, when it is to change.
  std::optional<int64_t> update(int64_t now, uint64_t ticks);
  int64_t periodNs() const { return periodNs_; }
  double lastRate() const { return lastRate_; }

 private:
  double maxPerSecond_;
  int64_t basePeriodNs_;
  int64_t periodNs_;
  int64_t windowStart_ = 0;
  uint64_t windowTicks_ = 0;
  double lastRate_ = 0;
};

}  // namespace jfrbpf::record
