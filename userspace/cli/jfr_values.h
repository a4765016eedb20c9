#pragma once
// Command-line values in JFR's own syntax: durations ("10ms", "1 s", "2m", "infinity"), rates
// ("500/s", "20/ms") and sizes ("100m"), as -XX:StartFlightRecording and .jfc files accept them.
#include <cstdint>
#include <string>
#include <string_view>

namespace jfrbpf::cli {

// Nanoseconds; INT64_MAX for "infinity" when allowed. Throws jfrbpf::Error naming the value and the syntax.
int64_t parseDuration(std::string_view text, std::string_view option, bool allowInfinity = false);

// Events per second.
double parseRate(std::string_view text, std::string_view option);

// Bytes, from JFR's memory sizes: "100m", "2g", "512k", "1048576" (units k, m, g, case-insensitive, also
// "MB"). Throws jfrbpf::Error naming the value and the syntax.
uint64_t parseSize(std::string_view text, std::string_view option);

}  // namespace jfrbpf::cli
