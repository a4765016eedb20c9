#include "userspace/record/sampling/thread_cpu_times.h"

#include <time.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "userspace/proc/files.h"
#include "userspace/proc/paths.h"
#include "userspace/proc/process_dir.h"
#include "userspace/proc/schedstat.h"
#include "userspace/proc/stat.h"

namespace jfrbpf::record {

namespace {

uint64_t clockNs(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

// When the thread started on CLOCK_MONOTONIC: /proc gives clock ticks after boot, which CLOCK_BOOTTIME counts
// from (it runs on through suspends, CLOCK_MONOTONIC does not). 0 when the thread is gone.
uint64_t threadStartNs(pid_t pid, pid_t tid) {
  proc::FileData text = proc::readFileAt(AT_FDCWD, proc::taskPath(pid, tid, "stat").c_str(), 4096);
  std::optional<proc::ProcStat> stat = text.ok() ? proc::parseStat(text.bytes) : std::nullopt;
  long ticksPerSecond = sysconf(_SC_CLK_TCK);
  if (!stat || ticksPerSecond <= 0) return 0;
  uint64_t sinceBoot = stat->startTicks * (1'000'000'000u / static_cast<uint64_t>(ticksPerSecond));
  uint64_t monotonic = clockNs(CLOCK_MONOTONIC), boottime = clockNs(CLOCK_BOOTTIME);
  return monotonic - std::min(monotonic, boottime - std::min(boottime, sinceBoot));
}

}  // namespace

ThreadCpuTimes readThreadCpuTimes(pid_t pid) {
  ThreadCpuTimes times;
  times.atNs = clockNs(CLOCK_MONOTONIC);  // the clock of a task's start time, which the sampler compares
  for (pid_t tid : proc::listTasks(pid)) {
    if (auto schedstat = proc::readSchedstat(pid, tid)) {
      times.byTid[tid] = schedstat->onCpuNs;
      times.runDelayByTid[tid] = schedstat->runQueueWaitNs;
    }
  }
  return times;
}

uint64_t wallTimeBetween(const ThreadCpuTimes& start, const ThreadCpuTimes& end, pid_t pid, pid_t tid) {
  uint64_t from = start.byTid.contains(tid) ? start.atNs : std::max(start.atNs, threadStartNs(pid, tid));
  return end.atNs > from ? end.atNs - from : 0;
}

namespace {

// A per-thread counter's growth from `start` to `end`: all of it for a thread that started in between.
uint64_t growth(const std::unordered_map<pid_t, uint64_t>& start, const std::unordered_map<pid_t, uint64_t>& end,
                pid_t tid) {
  auto last = end.find(tid);
  if (last == end.end()) return 0;
  auto first = start.find(tid);
  uint64_t from = first == start.end() ? 0 : first->second;
  return last->second > from ? last->second - from : 0;
}

}  // namespace

uint64_t cpuTimeBetween(const ThreadCpuTimes& start, const ThreadCpuTimes& end, pid_t tid) {
  return growth(start.byTid, end.byTid, tid);
}

uint64_t runDelayBetween(const ThreadCpuTimes& start, const ThreadCpuTimes& end, pid_t tid) {
  return growth(start.runDelayByTid, end.runDelayByTid, tid);
}

}  // namespace jfrbpf::record
