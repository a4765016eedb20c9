#include "userspace/record/sampling_clocks.h"

#include <dirent.h>

#include <cstdlib>
#include <string>

#include "userspace/base/error.h"
#include "userspace/record/online_cpus.h"

namespace jfrbpf::record {
namespace {

std::vector<pid_t> threadsOf(pid_t pid) {
  std::vector<pid_t> tids;
  std::string path = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(path.c_str());
  if (!dir) return tids;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    long tid = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && tid > 0) tids.push_back(static_cast<pid_t>(tid));
  }
  closedir(dir);
  return tids;
}

// Threads that start while we list and open: each pass catches the ones the previous pass missed.
constexpr int kMaxThreadScans = 8;

}  // namespace

SamplingClocks::SamplingClocks(ClockMode mode, uint64_t periodNs, BpfSampler& sampler)
    : mode_(mode), periodNs_(periodNs), sampler_(sampler) {
  if (mode_ == ClockMode::PerCpu) {
    for (int cpu : onlineCpus()) add(ClockEvent::perCpu(cpu, periodNs_));
  }
}

void SamplingClocks::add(ClockEvent event) {
  sampler_.attach({event.fd()});
  if (enabled_) event.enable();
  events_.push_back(std::move(event));
}

void SamplingClocks::addProcess(pid_t pid) {
  if (mode_ != ClockMode::PerThread) return;
  for (int scan = 0; scan < kMaxThreadScans; ++scan) {
    bool added = false;
    for (pid_t tid : threadsOf(pid)) {
      if (threadsWithEvents_.count(tid)) continue;
      try {
        add(ClockEvent::perThread(tid, periodNs_));
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::Target) throw;  // a thread that just exited needs no clock
      }
      threadsWithEvents_.insert(tid);
      added = true;
    }
    if (!added) return;
  }
}

void SamplingClocks::enable() {
  for (ClockEvent& event : events_) event.enable();
  enabled_ = true;
}

void SamplingClocks::disable() {
  for (ClockEvent& event : events_) event.disable();
  enabled_ = false;
}

uint64_t SamplingClocks::takeThrottledOverflows(uint64_t nowNs) {
  uint64_t throttled = 0;
  for (ClockEvent& event : events_) throttled += event.takeThrottledOverflows(nowNs);
  return throttled;
}

}  // namespace jfrbpf::record
