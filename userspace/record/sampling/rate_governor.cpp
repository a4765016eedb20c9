#include "userspace/record/sampling/rate_governor.h"

#include <algorithm>
#include <cmath>

namespace jfrbpf::record {
namespace {

// Long enough to average over a scheduler's bursts, short enough that a host where JVMs multiply comes back
// under its budget within seconds.
constexpr int64_t kWindowNs = 2'000'000'000;
// Aim below the budget so that growth within a window stays under it; come back down only when well under,
// so that the period does not flap.
constexpr double kAim = 0.8;
constexpr double kShortenBelow = 0.5;
constexpr double kLeastChange = 0.05;

}  // namespace

RateGovernor::RateGovernor(double maxPerSecond, int64_t basePeriodNs)
    : maxPerSecond_(maxPerSecond), basePeriodNs_(basePeriodNs), periodNs_(basePeriodNs) {}

std::optional<int64_t> RateGovernor::update(int64_t now, uint64_t ticks) {
  if (windowStart_ == 0) {
    windowStart_ = now;
    windowTicks_ = ticks;
    return std::nullopt;
  }
  if (now - windowStart_ < kWindowNs) return std::nullopt;
  lastRate_ = static_cast<double>(ticks - windowTicks_) * 1e9 / static_cast<double>(now - windowStart_);
  windowStart_ = now;
  windowTicks_ = ticks;
  if (lastRate_ <= maxPerSecond_ && (lastRate_ >= kShortenBelow * maxPerSecond_ || periodNs_ == basePeriodNs_)) {
    return std::nullopt;
  }
  // The rate goes as the inverse of the period: the host's threads use what CPU they use.
  const double wanted = static_cast<double>(periodNs_) * lastRate_ / (kAim * maxPerSecond_);
  // In whole milliseconds from 10 ms on (what settings show reads well), else microseconds.
  const double unit = wanted >= 1e7 ? 1e6 : 1e3;
  const int64_t next = std::max(basePeriodNs_, static_cast<int64_t>(std::ceil(wanted / unit) * unit));
  if (std::abs(static_cast<double>(next - periodNs_)) < kLeastChange * static_cast<double>(periodNs_)) {
    return std::nullopt;
  }
  periodNs_ = next;
  return next;
}

}  // namespace jfrbpf::record
