#pragma once
// What the agent instrumented for method timing and tracing in one JVM: the hook sites (where the loader
// attaches its trace uprobe), each instrumented method by slot, the methods it had to leave alone and why, and
// the state of the instrumentation. Built from the agent's records (protocol/timing_records.h); slots
// outside the range the loader assigned to this JVM are not believed.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "jvmsupport/protocol/timing_records.h"

namespace jfrbpf::jvm {

struct HookSiteAddresses {
  uint64_t traceSite = 0;
  std::string hookClass;
};

struct TimedMethodInfo {
  uint32_t hookIndex = 0;  // slot | protocol::kHookTimed | protocol::kHookTraced
  uint32_t classModifiers = 0;
  uint32_t methodModifiers = 0;
  std::string className;  // internal form
  std::string methodName;
  std::string descriptor;

  uint32_t slot() const { return hookIndex & protocol::kHookSlotMask; }
  bool timed() const { return (hookIndex & protocol::kHookTimed) != 0; }
  bool traced() const { return (hookIndex & protocol::kHookTraced) != 0; }
};

struct TimingSkip {
  std::string className;
  std::string methodName;  // empty: the class as a whole
  std::string descriptor;
  std::string reason;
};

struct TimingStatusInfo {
  protocol::TimingState state = protocol::TimingState::kApplied;
  uint32_t classesInstrumented = 0;
  uint32_t methodsInstrumented = 0;
  uint32_t methodsSkipped = 0;
  uint32_t classesFailed = 0;
  uint64_t tableAddress = 0;  // kApplied: the timing table in the JVM (protocol/timing_table.h)
  uint64_t tableBytes = 0;
  std::string message;
};

class TimedMethods {
 public:
  // The slots this JVM may use, [base, limit): set when the loader starts timing. Until then every
  // TimedMethod record is refused.
  void setSlotRange(uint32_t base, uint32_t limit) {
    slotBase_ = base;
    slotLimit_ = limit;
  }
  uint32_t slotBase() const { return slotBase_; }
  uint32_t slotLimit() const { return slotLimit_; }

  void setHookSites(const protocol::HookSites& record);
  // False (and nothing kept) when the slot lies outside the assigned range or was already given out.
  bool add(const protocol::TimedMethod& record);
  void addSkip(const protocol::TimingSkipped& record);
  void setStatus(const protocol::TimingStatus& record);

  const std::optional<HookSiteAddresses>& hookSites() const { return hookSites_; }
  const TimedMethodInfo* bySlot(uint32_t slot) const;
  size_t size() const { return bySlot_.size(); }
  const std::vector<TimingSkip>& skips() const { return skips_; }
  // The latest status; nullopt until the agent finished instrumenting the loaded classes.
  const std::optional<TimingStatusInfo>& status() const { return status_; }
  uint64_t refused() const { return refused_; }
  size_t approximateBytes() const { return bytes_; }

  template <typename F>
  void forEach(F&& visit) const {
    for (const auto& [slot, method] : bySlot_) visit(method);
  }

 private:
  uint32_t slotBase_ = 0;
  uint32_t slotLimit_ = 0;
  std::optional<HookSiteAddresses> hookSites_;
  std::unordered_map<uint32_t, TimedMethodInfo> bySlot_;
  std::vector<TimingSkip> skips_;
  std::optional<TimingStatusInfo> status_;
  uint64_t refused_ = 0;
  size_t bytes_ = 0;
};

}  // namespace jfrbpf::jvm
