#pragma once
// /proc/PID/timens_offsets: a process in another time namespace reads CLOCK_MONOTONIC shifted by an offset,
// so the times its JVM reports must be shifted back. `procRoot` is kProcRoot outside tests.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "userspace/proc/paths.h"

namespace jfrbpf::proc {

// The monotonic line's offset in nanoseconds ("monotonic <seconds> <nanoseconds>", the clock also named by
// its id 1); nullopt when there is none that parses within sane bounds.
std::optional<int64_t> parseMonotonicOffsetNs(std::string_view timensOffsetsText);
// The target's monotonic-clock offset in nanoseconds (its clock = ours + offset); 0 when it shares our
// time namespace or the kernel has none.
int64_t monotonicOffsetNs(pid_t pid, const std::string& procRoot = kProcRoot);

}  // namespace jfrbpf::proc
