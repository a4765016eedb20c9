#include "userspace/jvm/timed_methods.h"

namespace jfrbpf::jvm {

namespace {
// The agent caps its own skip reports; a stream that sends more is not worth the memory.
constexpr size_t kMaxSkips = 1000;
}  // namespace

void TimedMethods::setHookSites(const protocol::HookSites& record) {
  HookSiteAddresses sites;
  sites.traceSite = record.traceSite;
  sites.hookClass.assign(record.hookClass);
  hookSites_ = std::move(sites);
}

bool TimedMethods::add(const protocol::TimedMethod& record) {
  uint32_t slot = record.hookIndex & protocol::kHookSlotMask;
  bool flagged = (record.hookIndex & (protocol::kHookTimed | protocol::kHookTraced)) != 0;
  if (!flagged || slot < slotBase_ || slot >= slotLimit_ || bySlot_.count(slot) != 0) {
    ++refused_;
    return false;
  }
  TimedMethodInfo& m = bySlot_[slot];
  m.hookIndex = record.hookIndex;
  m.classModifiers = record.classModifiers;
  m.methodModifiers = record.methodModifiers;
  m.className.assign(record.className);
  m.methodName.assign(record.methodName);
  m.descriptor.assign(record.descriptor);
  bytes_ += sizeof(TimedMethodInfo) + 64 + m.className.size() + m.methodName.size() + m.descriptor.size();
  return true;
}

void TimedMethods::addSkip(const protocol::TimingSkipped& record) {
  if (skips_.size() >= kMaxSkips) return;
  skips_.push_back({std::string(record.className), std::string(record.methodName), std::string(record.descriptor),
                    std::string(record.reason)});
  bytes_ += sizeof(TimingSkip) + record.className.size() + record.methodName.size() + record.descriptor.size() +
            record.reason.size();
}

void TimedMethods::setStatus(const protocol::TimingStatus& record) {
  TimingStatusInfo status;
  status.state = static_cast<protocol::TimingState>(record.state);
  status.classesInstrumented = record.classesInstrumented;
  status.methodsInstrumented = record.methodsInstrumented;
  status.methodsSkipped = record.methodsSkipped;
  status.classesFailed = record.classesFailed;
  status.tableAddress = record.tableAddress;
  status.tableBytes = record.tableBytes;
  status.message.assign(record.message);
  status_ = std::move(status);
}

const TimedMethodInfo* TimedMethods::bySlot(uint32_t slot) const {
  auto it = bySlot_.find(slot);
  return it == bySlot_.end() ? nullptr : &it->second;
}

}  // namespace jfrbpf::jvm
