#include "userspace/record/sampling/sampling_clocks.h"

#include <set>

#include "base/error.h"
#include "userspace/proc/process_dir.h"
#include "userspace/record/sampling/online_cpus.h"

namespace jfrbpf::record {
namespace {

// Threads that start while we list and open: each pass catches the ones the previous pass missed.
constexpr int kMaxThreadScans = 8;

}  // namespace

SamplingClocks::SamplingClocks(ClockMode mode, uint64_t periodNs, BpfSampler& sampler)
    : mode_(mode), periodNs_(periodNs), sampler_(sampler) {
  if (mode_ == ClockMode::PerCpu) {
    for (int cpu : onlineCpus()) attach(cpuEvents_, ClockEvent::perCpu(cpu, periodNs_));
  }
}

SamplingClocks::~SamplingClocks() {
  std::lock_guard lock(mutex_);
  release(cpuEvents_);
  for (auto& [pid, group] : threadEvents_) release(group);
}

void SamplingClocks::attach(std::vector<Attached>& group, ClockEvent event, pid_t tid) {
  bpf_link* link = sampler_.attach(event.fd());
  if (enabled_) event.enable();
  group.push_back({std::move(event), link, tid});
}

void SamplingClocks::release(std::vector<Attached>& group) {
  for (Attached& attached : group) sampler_.release(attached.link);
  group.clear();
}

void SamplingClocks::addProcess(pid_t pid) {
  if (mode_ != ClockMode::PerThread) return;
  std::lock_guard lock(mutex_);
  std::vector<Attached>& group = threadEvents_[pid];
  std::set<pid_t> seen;
  for (const Attached& attached : group) seen.insert(attached.tid);
  for (int scan = 0; scan < kMaxThreadScans; ++scan) {
    bool added = false;
    for (pid_t tid : proc::listTasks(pid)) {
      if (!seen.insert(tid).second) continue;
      added = true;
      try {
        attach(group, ClockEvent::perThread(tid, periodNs_), tid);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::Target) throw;  // a thread that just exited needs no clock
      }
    }
    if (!added) return;
  }
}

void SamplingClocks::removeProcess(pid_t pid) {
  std::lock_guard lock(mutex_);
  auto it = threadEvents_.find(pid);
  if (it == threadEvents_.end()) return;
  release(it->second);
  threadEvents_.erase(it);
}

void SamplingClocks::setPeriod(uint64_t periodNs) {
  std::lock_guard lock(mutex_);
  periodNs_ = periodNs;
  for (Attached& attached : cpuEvents_) attached.event.setPeriod(periodNs);
  for (auto& [pid, group] : threadEvents_) {
    for (Attached& attached : group) attached.event.setPeriod(periodNs);
  }
}

void SamplingClocks::enable() {
  std::lock_guard lock(mutex_);
  for (Attached& attached : cpuEvents_) attached.event.enable();
  for (auto& [pid, group] : threadEvents_) {
    for (Attached& attached : group) attached.event.enable();
  }
  enabled_ = true;
}

void SamplingClocks::disable() {
  std::lock_guard lock(mutex_);
  for (Attached& attached : cpuEvents_) attached.event.disable();
  for (auto& [pid, group] : threadEvents_) {
    for (Attached& attached : group) attached.event.disable();
  }
  enabled_ = false;
}

uint64_t SamplingClocks::takeThrottledOverflows(uint64_t nowNs) {
  std::lock_guard lock(mutex_);
  uint64_t throttled = 0;
  for (Attached& attached : cpuEvents_) throttled += attached.event.takeThrottledOverflows(nowNs);
  return throttled;
}

}  // namespace jfrbpf::record
