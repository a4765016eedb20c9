#pragma once
// /proc/PID/task/TID/schedstat: the scheduler's account of one thread's CPU time, which tests compare with
// what was sampled.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "userspace/proc/paths.h"

namespace jfrbpf::proc {

struct Schedstat {
  uint64_t onCpuNs = 0;         // time spent running
  uint64_t runQueueWaitNs = 0;  // time spent runnable, waiting for a CPU
  uint64_t timeslices = 0;      // how many times it was put on a CPU
};

// nullopt unless the text starts with three decimal numbers.
std::optional<Schedstat> parseSchedstat(std::string_view text);
// nullopt when the thread is gone or the file unreadable.
std::optional<Schedstat> readSchedstat(pid_t pid, pid_t tid, const std::string& procRoot = kProcRoot);

}  // namespace jfrbpf::proc
