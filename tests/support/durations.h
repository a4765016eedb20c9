#pragma once
// Nanosecond durations, as the JFR writer and the recorder count time, for tests that build timestamps.
#include <cstdint>

namespace jfrbpf::test {

inline constexpr int64_t kMs = 1'000'000;
inline constexpr int64_t kSecond = 1'000'000'000;

}  // namespace jfrbpf::test
