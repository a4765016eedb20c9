#pragma once
// Reads the JVM's lock waits into a Profile weighted by the time waited (each event's duration): a thread
// blocked entering a `synchronized` monitor (jdk.JavaMonitorEnter), waiting in Object.wait
// (jdk.JavaMonitorWait), or parked in LockSupport.park, which java.util.concurrent's locks use
// (jdk.ThreadPark). Each stack is topped by the class of the object waited for (FrameKind::kLockClass: the
// monitor's class, or the blocker parked on), as the allocation profile tops its stacks with the allocated
// class: a method's box is how long it waited, the tips above it say for which lock.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "formats/convert/profile.h"
#include "formats/convert/profile_builder.h"
#include "formats/convert/sample_collector.h"
#include "formats/jfr/reader/recording.h"

namespace jfrbpf::convert {

inline constexpr const char* kMonitorEnterEvent = "jdk.JavaMonitorEnter";
inline constexpr const char* kMonitorWaitEvent = "jdk.JavaMonitorWait";
inline constexpr const char* kThreadParkEvent = "jdk.ThreadPark";

// The three ways the JVM records a thread waiting for a lock, one event type each.
enum class LockKind : uint8_t { kBlocked, kWait, kPark };
inline constexpr std::array<LockKind, 3> kLockKinds = {LockKind::kBlocked, LockKind::kWait, LockKind::kPark};

// What an event type of a kind calls its fields, and how its missing values are shown.
struct LockKindInfo {
  std::string_view event;       // "jdk.JavaMonitorEnter"
  std::string_view classField;  // the class of the object waited for: "monitorClass", "parkedClass"
  // The thread the event names beside the waiting one: "previousOwner" (held the monitor last), "notifier"
  // (called notify); "" where the event names none (jdk.ThreadPark).
  std::string_view ownerField;
  std::string_view noClass;  // the class frame's name when the class is null
};
const LockKindInfo& lockKindInfo(LockKind kind);
// The kind of an event type's name; nullopt for any other event.
std::optional<LockKind> lockKindOf(std::string_view eventName);

// The waits naming one thread in the owner field (or none: a JavaMonitorWait that timed out, a
// JavaMonitorEnter whose previous owner the JVM did not know), in the time they waited.
struct LockOwner {
  std::optional<ProfileThread> thread;  // nullopt: the field was null
  uint64_t events = 0;
  int64_t nanos = 0;
};

// Feeds on the events of one pass over a recording (see collect), like SampleCollector.
class LockCollector {
 public:
  // The waits of every kind, or of `only` that kind.
  LockCollector(const jfr::reader::Recording& recording, SampleFilter filter,
                std::optional<LockKind> only = std::nullopt);

  bool wants(const jfr::reader::TypeInfo& type) const;
  void beginChunk(const jfr::reader::Chunk&);
  void add(const jfr::reader::RecordedEvent& event);
  // The profile (TimeKind::kLock: SampleGroup::cpuNanos holds the time waited); the collector's builder is
  // spent afterwards (owners and counts stay).
  Profile finish();

  // The waits the filters kept by owner field value, in the order first seen; empty for jdk.ThreadPark.
  std::vector<LockOwner> owners() const;
  uint64_t eventsSeen() const { return seen_; }  // before filtering

 private:
  struct OwnerSlot {
    std::optional<uint32_t> thread;  // in ownerThreads_; nullopt for a null owner
    uint64_t events = 0;
    int64_t nanos = 0;
  };
  void addOwner(const jfr::reader::RecordedEvent& event, std::string_view field, int64_t nanos);

  std::optional<LockKind> only_;
  RecordingSpan span_;
  ProfileBuilder builder_;
  ProfileBuilder ownerThreads_;  // interns the threads the owner fields name, across chunks
  std::vector<OwnerSlot> owners_;
  std::map<int64_t, size_t> ownerSlots_;  // ownerThreads_'s thread (-1: null) -> its slot in owners_
  std::array<bool, kLockKinds.size()> seenKinds_{};  // kinds with events, for the profile's eventName
  uint64_t seen_ = 0;
};

// One pass over `recording` with a LockCollector of every kind.
Profile loadLockProfile(const jfr::reader::Recording& recording, const SampleFilter& filter);

}  // namespace jfrbpf::convert
