#pragma once
// The JVMs whose Java frames one output shows, kept in service while it records: their agents' channels
// drained, their walker tables in BPF current, what they unloaded forgotten after a while (a long-lived JVM
// that keeps defining classes keeps a bounded model), their threads' Java identities, their timing tables
// read, and notes on how their methods were instrumented.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/jfr/writer/recording.h"
#include "userspace/record/jvm/jvm_connection.h"
#include "userspace/record/jvm/thread_registry.h"
#include "userspace/record/sampling/jvm_kernel_side.h"
#include "userspace/timing/method_statistics.h"

namespace jfrbpf::record {

class TargetJvms {
 public:
  TargetJvms(jfr::Recording& out, JvmKernelSide& sampler) : out_(out), sampler_(sampler) {}

  // `jvm` (alive as long as this) is one of them from now on.
  void add(JvmConnection& jvm);
  bool has(pid_t pid) const;

  // Drains the agents' channels and keeps the walker's tables of each JVM current. Returns the JVMs whose
  // session ended at its memory limit, with why: their Java frames are to be dropped (TargetOutput).
  // What the JVMs unloaded is forgotten once every record older than the previous call is resolved: the
  // caller drains the sample rings between two calls.
  std::vector<std::pair<pid_t, std::string>> service(jfr::Ticks now);
  // Hands `write` the waits of virtual threads each JVM's agent sent since the last call, with its pid.
  void takeVirtualThreadWaits(const std::function<void(pid_t, jvm::JavaModel::VirtualThreadWaitInfo&)>& write);
  // The memory budget (memory_budget.h): the bytes of each JVM model still in use.
  std::vector<std::pair<pid_t, size_t>> modelBytes() const;
  // `pid`'s agent session ends and the walker forgets its layout (`why`); false if it is not one of them.
  bool dropJavaFrames(pid_t pid, const std::string& why);
  // Process `pid` exited: the walker forgets its JVM's threads (JvmConnection::forgetThreads).
  void forgetProcess(pid_t pid);
  // As the recording stops with --off-cpu: hands each agent the flush of its JVM's waits
  // (JvmConnection::handOffCpuFlush); returns how many took it.
  size_t handOffCpuFlush();

  // Java threads renamed or started since the last look get their Java identity in `threads`. Ended threads
  // kept their last name when they ended (a sample of theirs still to come finds it with identify()).
  void nameThreads(ThreadRegistry& threads) const;
  // Thread `tid` of `tgid`, first met in a record of time `ticks`: its Java identity, if its agent told one.
  void identify(ThreadRegistry& threads, pid_t tgid, pid_t tid, uint64_t ticks) const;

  // A method-timing slot's statistics, from the JVM whose range holds it (zero if none does).
  timing::MethodStats timingStats(uint32_t slot) const;
  // Notes, once per JVM, on whether its trace uprobe runs on the kernel's fast path, and on the methods its
  // agent left alone since the last look (classes loaded during the recording).
  void reportInstrumentation(jfr::Ticks now);

 private:
  void reportProbePaths(jfr::Ticks now);
  void reportTimingSkips(jfr::Ticks now);

  jfr::Recording& out_;
  JvmKernelSide& sampler_;
  std::vector<JvmConnection*> jvms_;
  bool layoutWarned_ = false;
  jfr::Ticks nextForgetGone_ = 0;
  jfr::Ticks lastServiced_ = 0;  // the consumer drained the rings since
  std::vector<pid_t> probePathsReported_;
  std::unordered_map<pid_t, size_t> timingSkipsReported_;  // per JVM: skips already in notes
};

}  // namespace jfrbpf::record
