#include "userspace/record/thread_cpu_times.h"

#include <time.h>

#include "userspace/proc/process_dir.h"
#include "userspace/proc/schedstat.h"

namespace jfrbpf::record {

ThreadCpuTimes readThreadCpuTimes(pid_t pid) {
  ThreadCpuTimes times;
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // the clock of a task's start time, which the sampler compares
  times.atNs = static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
  for (pid_t tid : proc::listTasks(pid)) {
    if (auto schedstat = proc::readSchedstat(pid, tid)) times.byTid[tid] = schedstat->onCpuNs;
  }
  return times;
}

uint64_t cpuTimeBetween(const ThreadCpuTimes& start, const ThreadCpuTimes& end, pid_t tid) {
  auto last = end.byTid.find(tid);
  if (last == end.byTid.end()) return 0;
  auto first = start.byTid.find(tid);
  uint64_t from = first == start.byTid.end() ? 0 : first->second;
  return last->second > from ? last->second - from : 0;
}

}  // namespace jfrbpf::record
