#include "userspace/record/output/thread_cpu_accounting.h"

namespace jfrbpf::record {

void ThreadCpuAccounting::write(jfr::Ticks now, pid_t pid, const ThreadCpuTimes& end) {
  auto start = starts_.find(pid);
  if (start == starts_.end()) return;
  for (const auto& [tid, cpuNs] : end.byTid) {
    uint64_t used = cpuTimeBetween(start->second, end, tid);
    if (used == 0 && !idleThreadsToo_) continue;
    out_.threadCpuTime(now, threads_.threadFor(pid, tid), static_cast<jfr::Ticks>(used),
                       static_cast<jfr::Ticks>(wallTimeBetween(start->second, end, pid, tid)),
                       static_cast<jfr::Ticks>(runDelayBetween(start->second, end, tid)));
  }
}

void ThreadCpuAccounting::endFile(jfr::Ticks now) {
  for (auto& [pid, start] : starts_) {
    ThreadCpuTimes end = readThreadCpuTimes(pid);
    if (end.byTid.empty()) continue;
    write(now, pid, end);
    start = std::move(end);
  }
}

}  // namespace jfrbpf::record
