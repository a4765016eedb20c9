#pragma once
// The boot time from /proc/stat's "btime" line: process start times in /proc/PID/stat count clock ticks from
// there. `procRoot` is kProcRoot outside tests.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "userspace/proc/paths.h"

namespace jfrbpf::proc {

// Seconds since the epoch; nullopt when the text has no "btime" line with a number.
std::optional<int64_t> parseBootTimeSeconds(std::string_view procStatText);
std::optional<int64_t> readBootTimeSeconds(const std::string& procRoot = kProcRoot);

}  // namespace jfrbpf::proc
