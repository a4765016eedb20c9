#include "formats/convert/lock_collector.h"

#include <algorithm>

#include "formats/convert/saturating.h"
#include "formats/jfr/reader/chunk.h"

namespace jfrbpf::convert {
namespace {

constexpr LockKindInfo kKindInfo[] = {
    {kMonitorEnterEvent, "monitorClass", "previousOwner", "[unknown class]"},
    {kMonitorWaitEvent, "monitorClass", "notifier", "[unknown class]"},
    // LockSupport.park() and parkNanos(long) take no blocker object: their waits have no class.
    {kThreadParkEvent, "parkedClass", "", "[no blocker]"},
};

}  // namespace

const LockKindInfo& lockKindInfo(LockKind kind) { return kKindInfo[static_cast<size_t>(kind)]; }

std::optional<LockKind> lockKindOf(std::string_view eventName) {
  for (LockKind kind : kLockKinds) {
    if (lockKindInfo(kind).event == eventName) return kind;
  }
  return std::nullopt;
}

LockCollector::LockCollector(const jfr::reader::Recording& recording, SampleFilter filter,
                             std::optional<LockKind> only)
    : only_(only),
      span_(recordingSpan(recording)),
      builder_(std::move(filter), span_.startNanos, span_.gridNanos),
      ownerThreads_({}, 0, 1) {}

bool LockCollector::wants(const jfr::reader::TypeInfo& type) const {
  auto kind = lockKindOf(type.name);
  return kind && (!only_ || *kind == *only_);
}

void LockCollector::beginChunk(const jfr::reader::Chunk&) {
  builder_.beginChunk();
  ownerThreads_.beginChunk();
}

void LockCollector::add(const jfr::reader::RecordedEvent& event) {
  auto kind = lockKindOf(event.type().name);
  if (!kind) return;
  ++seen_;
  seenKinds_[static_cast<size_t>(*kind)] = true;
  // The filters see the stack the JVM recorded, not the class frame put over it.
  auto sample = builder_.select(event);
  if (!sample) return;
  const LockKindInfo& info = lockKindInfo(*kind);
  uint32_t node = builder_.onTop(sample->node, builder_.lockClass(event.getObject(info.classField), info.noClass));
  // A wait lasts its duration; a negative one is corrupt and counts for nothing.
  int64_t nanos = std::max<int64_t>(0, event.durationNanos());
  builder_.addSample(sample->thread, node, event.startTimeNanos(), nanos, sample->context);
  if (!info.ownerField.empty()) addOwner(event, info.ownerField, nanos);
}

void LockCollector::addOwner(const jfr::reader::RecordedEvent& event, std::string_view field, int64_t nanos) {
  std::optional<uint32_t> thread;
  if (auto owner = jfr::reader::threadInfo(event.get(field))) thread = ownerThreads_.thread(owner);
  auto [slot, inserted] = ownerSlots_.try_emplace(thread ? int64_t{*thread} : -1, owners_.size());
  if (inserted) owners_.push_back(OwnerSlot{thread});
  OwnerSlot& owner = owners_[slot->second];
  owner.events += 1;
  owner.nanos = saturatingAdd(owner.nanos, nanos);
}

Profile LockCollector::finish() {
  Profile profile = builder_.finish();
  profile.timeKind = TimeKind::kLock;
  profile.cpuTimeKnown = true;  // every wait says how long it lasted
  for (LockKind kind : kLockKinds) {
    if (!seenKinds_[static_cast<size_t>(kind)]) continue;
    if (!profile.eventName.empty()) profile.eventName += " + ";
    profile.eventName += lockKindInfo(kind).event;
  }
  span_.stamp(profile);
  return profile;
}

std::vector<LockOwner> LockCollector::owners() const {
  const std::vector<ProfileThread>& threads = ownerThreads_.profile().threads;
  std::vector<LockOwner> out;
  out.reserve(owners_.size());
  for (const OwnerSlot& slot : owners_) {
    LockOwner owner{std::nullopt, slot.events, slot.nanos};
    if (slot.thread) owner.thread = threads[*slot.thread];
    out.push_back(std::move(owner));
  }
  return out;
}

Profile loadLockProfile(const jfr::reader::Recording& recording, const SampleFilter& filter) {
  LockCollector collector(recording, filter);
  return collect(recording, collector);
}

}  // namespace jfrbpf::convert
