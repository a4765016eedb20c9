#pragma once
// The recording's clocks: ticks are CLOCK_MONOTONIC nanoseconds (what bpf_ktime_get_ns() returns, so BPF
// timestamps need no conversion); each chunk header pairs a tick value with the wall clock at that instant.
#include <time.h>

#include <cstdint>

#include "formats/jfr/writer/types.h"

namespace jfrbpf::jfr {

inline int64_t readClock(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline Ticks monotonicNow() { return readClock(CLOCK_MONOTONIC); }

struct ClockPair {
  Ticks ticks;
  int64_t epochNanos;
};

// Reads the wall clock between two monotonic reads and keeps the tightest of a few tries, so both values
// describe the same instant to within the cost of a clock read.
inline ClockPair readClockPair() {
  ClockPair best{};
  int64_t bestGap = INT64_MAX;
  for (int attempt = 0; attempt < 3; ++attempt) {
    Ticks before = monotonicNow();
    int64_t wall = readClock(CLOCK_REALTIME);
    Ticks after = monotonicNow();
    if (after - before < bestGap) {
      bestGap = after - before;
      best = {before + (after - before) / 2, wall};
    }
  }
  return best;
}

}  // namespace jfrbpf::jfr
