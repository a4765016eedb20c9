#pragma once
// Durations in JFR's own syntax: the units -XX:StartFlightRecording, .jfc files and jdk.ActiveSetting values
// spell them with, and the spelling a setting's value shows.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace jfrbpf::jfr {

struct DurationUnit {
  std::string_view name;
  int64_t nanos;
};

inline constexpr std::array<DurationUnit, 7> kDurationUnits = {{{"ns", 1},
                                                                {"us", 1'000},
                                                                {"ms", 1'000'000},
                                                                {"s", 1'000'000'000},
                                                                {"m", 60LL * 1'000'000'000},
                                                                {"h", 3600LL * 1'000'000'000},
                                                                {"d", 86400LL * 1'000'000'000}}};

// "10 ms", "1 s", "2 m": the shortest exact JFR spelling, as jdk.ActiveSetting values show it; "infinity"
// for INT64_MAX.
std::string formatDuration(int64_t nanos);

}  // namespace jfrbpf::jfr
