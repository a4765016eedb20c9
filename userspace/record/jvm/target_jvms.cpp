#include "userspace/record/jvm/target_jvms.h"

#include <algorithm>

#include "userspace/jvm/metadata_wait.h"
#include "userspace/record/user_warning.h"
#include "userspace/timing/probe_sites.h"

namespace jfrbpf::record {
namespace {

// What a JVM unloaded (classes, compiled code) and threads that ended go once no record still to be
// resolved can be older: the consumer drains the rings between two services, so every record taken before
// the last service is resolved by now, or waits for its agent's metadata (at most
// jvm::MetadataWait::kMaxWaitNs). The margin covers clocks read a little apart. Kept 10 s, a JVM that
// defines and unloads a thousand classes a second peaked at 53 MiB of model instead of 43.
constexpr jfr::Ticks kForgetMarginNs = 1'000'000'000;
constexpr jfr::Ticks kForgetGoneEveryNs = 1'000'000'000;

}  // namespace

void TargetJvms::add(JvmConnection& jvm) {
  jvms_.push_back(&jvm);
  timingSkipsReported_[jvm.pid()] = jvm.model().timedMethods().skips().size();  // the recorder told those
}

bool TargetJvms::has(pid_t pid) const {
  return std::any_of(jvms_.begin(), jvms_.end(), [pid](const JvmConnection* jvm) { return jvm->pid() == pid; });
}

std::vector<std::pair<pid_t, std::string>> TargetJvms::service(jfr::Ticks now) {
  std::vector<std::pair<pid_t, std::string>> overLimit;
  for (JvmConnection* jvm : jvms_) {
    jvm::JavaSession& session = jvm->session();
    if (!session.running()) continue;
    if (!session.drain()) {
      std::string reason = session.error().empty() ? "the JVM closed the agent channel" : session.error();
      if (session.end() == jvm::SessionEnd::kMemoryLimit) {
        overLimit.emplace_back(jvm->pid(), std::move(reason));
        continue;
      }
      out_.note(now, "info", "JVM " + std::to_string(jvm->pid()) + ": agent session ended: " + reason);
    }
    std::string whyNot;
    if (!jvm->publish(sampler_, whyNot) && !whyNot.empty() && !layoutWarned_) {
      layoutWarned_ = true;
      out_.note(now, "warning", "JVM " + std::to_string(jvm->pid()) + ": Java stack walking unavailable: " + whyNot);
    }
  }
  const jfr::Ticks resolvedBefore = lastServiced_ - jvm::MetadataWait::kMaxWaitNs - kForgetMarginNs;
  if (now >= nextForgetGone_ && resolvedBefore > 0) {
    nextForgetGone_ = now + kForgetGoneEveryNs;
    for (JvmConnection* jvm : jvms_) jvm->session().model().forgetBefore(static_cast<uint64_t>(resolvedBefore));
  }
  lastServiced_ = now;
  return overLimit;
}

void TargetJvms::takeVirtualThreadWaits(
    const std::function<void(pid_t, jvm::JavaModel::VirtualThreadWaitInfo&)>& write) {
  for (JvmConnection* jvm : jvms_) {
    for (jvm::JavaModel::VirtualThreadWaitInfo& wait : jvm->session().model().takeVirtualThreadWaits()) {
      write(jvm->pid(), wait);
    }
  }
}

std::vector<std::pair<pid_t, size_t>> TargetJvms::modelBytes() const {
  std::vector<std::pair<pid_t, size_t>> models;
  for (JvmConnection* jvm : jvms_) {
    if (jvm->session().running()) models.emplace_back(jvm->pid(), jvm->model().approximateBytes());
  }
  return models;
}

bool TargetJvms::dropJavaFrames(pid_t pid, const std::string& why) {
  auto jvm = std::find_if(jvms_.begin(), jvms_.end(), [pid](JvmConnection* j) { return j->pid() == pid; });
  if (jvm == jvms_.end()) return false;
  (*jvm)->dropJavaFrames(sampler_, why);
  return true;
}

void TargetJvms::forgetProcess(pid_t pid) {
  for (JvmConnection* jvm : jvms_) {
    if (jvm->pid() == pid) jvm->forgetThreads(sampler_);
  }
}

size_t TargetJvms::handOffCpuFlush() {
  size_t handed = 0;
  for (JvmConnection* jvm : jvms_) {
    if (jvm->handOffCpuFlush(sampler_)) ++handed;
  }
  return handed;
}

void TargetJvms::nameThreads(ThreadRegistry& threads) const {
  for (JvmConnection* jvm : jvms_) {
    jvm->model().threads().forEach([&](const jvm::JavaThreadInfo& java) {
      if (java.tid > 0 && java.endTicks == UINT64_MAX)
        threads.setJavaIdentity(jvm->pid(), java.tid, java.name, java.javaThreadId, java.isVirtual);
    });
  }
}

void TargetJvms::identify(ThreadRegistry& threads, pid_t tgid, pid_t tid, uint64_t ticks) const {
  for (const JvmConnection* jvm : jvms_) {
    if (jvm->pid() != tgid) continue;
    if (const jvm::JavaThreadInfo* java = jvm->model().threads().byTid(tid, ticks)) {
      threads.setJavaIdentity(tgid, tid, java->name, java->javaThreadId, java->isVirtual);
    }
  }
}

timing::MethodStats TargetJvms::timingStats(uint32_t slot) const {
  for (const JvmConnection* jvm : jvms_) {
    const timing::TimingTableView* table = jvm->timingTable();
    if (table != nullptr && table->hasSlot(slot)) return table->read(slot);
  }
  return timing::MethodStats{};
}

void TargetJvms::reportInstrumentation(jfr::Ticks now) {
  reportProbePaths(now);
  reportTimingSkips(now);
}

void TargetJvms::reportTimingSkips(jfr::Ticks now) {
  for (JvmConnection* jvm : jvms_) {
    const std::vector<jvm::TimingSkip>& skips = jvm->model().timedMethods().skips();
    size_t& reported = timingSkipsReported_[jvm->pid()];
    for (; reported < skips.size(); ++reported) {
      const jvm::TimingSkip& skip = skips[reported];
      out_.note(now, "info", "JVM " + std::to_string(jvm->pid()) + ": not instrumented: " + skip.className +
                                 (skip.methodName.empty() ? "" : "::" + skip.methodName + skip.descriptor) + ": " +
                                 skip.reason);
    }
  }
}

void TargetJvms::reportProbePaths(jfr::Ticks now) {
  for (JvmConnection* jvm : jvms_) {
    // A registered uprobe is an int3 until its first hit, which may optimize it: judge only after hits.
    if (!jvm->traceProbeAttached() ||
        std::find(probePathsReported_.begin(), probePathsReported_.end(), jvm->pid()) != probePathsReported_.end() ||
        !sampler_.traceProbeHit(static_cast<uint32_t>(jvm->pid()))) {
      continue;
    }
    timing::ProbeSiteState state = jvm->probeSiteState();
    if (state == timing::ProbeSiteState::kNop) continue;
    // Unreadable site bytes: the kernel's trampoline page, mapped at the first optimization, still tells.
    if (state == timing::ProbeSiteState::kUnknown && timing::hasUprobeTrampoline(jvm->pid())) {
      state = timing::ProbeSiteState::kOptimized;
    }
    probePathsReported_.push_back(jvm->pid());
    std::string message = "JVM " + std::to_string(jvm->pid()) + ": method trace uprobe: " + timing::describe(state);
    if (state == timing::ProbeSiteState::kTrap) {
      message += ": every traced call traps (~3.5 us); Linux 6.18+ on x86_64 optimizes uprobes on 5-byte NOPs";
      warnUser(out_, now, message);
    } else {
      out_.note(now, "info", message);
    }
  }
}

}  // namespace jfrbpf::record
