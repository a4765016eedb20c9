#pragma once
// The kernel's own CPU time of a process's threads (sum_exec_runtime, /proc/PID/task/TID/schedstat) at one
// moment. Read when a process's recording begins, it is where the sampler starts counting each of its
// threads, so that their samples stand for exactly what they used since; read again when it ends, it is what
// the recording says each thread used (jfrbpf.ThreadCPUTime), the truth its samples can be checked against.
#include <sys/types.h>

#include <cstdint>
#include <unordered_map>

namespace jfrbpf::record {

struct ThreadCpuTimes {
  uint64_t atNs = 0;  // CLOCK_MONOTONIC just before the threads were read: a thread started since is not below
  std::unordered_map<pid_t, uint64_t> byTid;  // thread id -> CPU nanoseconds since the thread started
  std::unordered_map<pid_t, uint64_t> runDelayByTid;  // thread id -> ns runnable, waiting for a CPU, likewise
};

// Empty (with atNs set) when the process is gone.
ThreadCpuTimes readThreadCpuTimes(pid_t pid);

// A thread's CPU time between `start` and `end`: all of it for a thread that started in between.
uint64_t cpuTimeBetween(const ThreadCpuTimes& start, const ThreadCpuTimes& end, pid_t tid);
// Its time waiting for a CPU between them, likewise.
uint64_t runDelayBetween(const ThreadCpuTimes& start, const ThreadCpuTimes& end, pid_t tid);

// The part of [start, end] thread `tid` of process `pid` was alive for: all of it, or for a thread that
// started in between, from its start (read from /proc while it still runs; to clock-tick precision).
uint64_t wallTimeBetween(const ThreadCpuTimes& start, const ThreadCpuTimes& end, pid_t pid, pid_t tid);

}  // namespace jfrbpf::record
