#pragma once
// Event timestamps: CLOCK_MONOTONIC nanoseconds, the clock of bpf_ktime_get_ns() (modulo time namespaces,
// which the loader corrects for).
#include <time.h>

#include <cstdint>

namespace jfrbpf::agent {

inline uint64_t monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace jfrbpf::agent
