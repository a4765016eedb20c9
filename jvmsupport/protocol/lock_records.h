#pragma once
// Lock profiling (record --lock): the loader asks with a StartLocks command; the agent times contended monitor
// entries and Object.wait with JVMTI's monitor events, and parks (Unsafe.park) in its own binding of that
// native. For each wait at or over the threshold it calls the trace stub (hook_stubs.h) with kHookLock and
// the kind's flags | the class id of the monitor or the park's blocker, the wait's start, its duration, a
// detail (Object.wait's timeout in ms; a park's timeout in ns, or its deadline in ms with kHookLockUntil;
// 0: none) and the object's address, so that the loader's uprobe walks the waiting thread's stack as it does
// a traced call's. The agent answers once with a LockStatus record.
#include <cstdint>
#include <span>
#include <string_view>

#include "jvmsupport/protocol/wire.h"

namespace jfrbpf::protocol {

// Hook index flags of a lock wait; the slot holds the monitor's class id (at most kHookSlotMask).
inline constexpr uint32_t kHookLock = 1u << 27;         // a wait for a monitor: jdk.JavaMonitorEnter ...
inline constexpr uint32_t kHookLockWait = 1u << 28;     // ... or, with this, Object.wait: jdk.JavaMonitorWait
inline constexpr uint32_t kHookLockTimedOut = 1u << 29;  // the wait ended by its timeout
inline constexpr uint32_t kHookLockPark = 1u << 30;      // LockSupport.park (Unsafe.park): jdk.ThreadPark
inline constexpr uint32_t kHookLockUntil = 1u << 31;     // a park's detail is a deadline, in ms since the epoch

// loader -> agent: waits shorter than this are not reported.
struct StartLocks {
  uint64_t thresholdNs = 0;
};

enum class LockState : uint32_t { kStarted = 1, kUnavailable = 2 };

// agent -> loader.
struct LockStatus {
  uint64_t time = 0;
  uint32_t state = 0;        // LockState
  uint32_t parks = 0;        // 1: parks are timed as well
  std::string_view message;  // kUnavailable: why; kStarted without parks: why not
};

template <typename Sink>
void encode(WireWriter<Sink>& w, const StartLocks& r) {
  w.u64(r.thresholdNs);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const LockStatus& r) {
  w.u64(r.time);
  w.u32(r.state);
  w.u32(r.parks);
  w.string(r.message);
}

inline bool decode(std::span<const uint8_t> p, StartLocks& r) {
  WireReader in(p);
  r.thresholdNs = in.u64();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, LockStatus& r) {
  WireReader in(p);
  r.time = in.u64();
  r.state = in.u32();
  r.parks = in.u32();
  r.message = in.string();
  return in.ok();
}

}  // namespace jfrbpf::protocol
