#pragma once
// What /proc says about a process and the machine: CPU time, memory, load.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jfrbpf::bench {

// User + system CPU time of the whole process (every thread, dead ones included) from /proc/PID/stat, in
// nanoseconds at clock-tick resolution; nullopt once the process is gone.
std::optional<uint64_t> processCpuNs(pid_t pid);
// The same to the nanosecond (the kernel's sum_exec_runtime of every thread, dead ones included), through the
// process's CPU-time clock; nullopt once the process is gone. For windows too short for clock ticks.
std::optional<uint64_t> processCpuClockNs(pid_t pid);
// The same from the text of a stat file (the command name may hold spaces and parentheses).
std::optional<uint64_t> cpuTicksFromStat(std::string_view statText);

struct MemoryUse {
  uint64_t rssBytes = 0;      // VmRSS
  uint64_t peakRssBytes = 0;  // VmHWM: the kernel's own high-water mark
};
std::optional<MemoryUse> memoryOf(pid_t pid);
std::optional<MemoryUse> memoryFromStatus(std::string_view statusText);

// Where a resident set lives, from /proc/PID/smaps.
struct RssBreakdown {
  uint64_t bpfMaps = 0;    // BPF maps mapped into the process (ring buffer, mmapable arrays)
  uint64_t anonymous = 0;  // heap, anonymous mappings, stacks
  uint64_t files = 0;      // mapped files (code, data)
  uint64_t other = 0;      // the rest ([vdso], device mappings, ...)
};
RssBreakdown rssBreakdownFromSmaps(std::string_view smapsText);
RssBreakdown rssBreakdown(pid_t pid);

// Voluntary context switches of every live thread of `pid` (each one a wait that ended: a consumer that
// sleeps until data arrives switches once per wakeup).
uint64_t voluntarySwitches(pid_t pid);
std::optional<uint64_t> voluntarySwitchesFromStatus(std::string_view statusText);

// The 1-minute load average.
double loadAverage();

// The whole file, or "" when it cannot be read.
std::string readTextFile(const std::string& path);

}  // namespace jfrbpf::bench
