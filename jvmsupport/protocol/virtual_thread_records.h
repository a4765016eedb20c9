#pragma once
// The waits of virtual threads (record --off-cpu on JDK 21+). A virtual thread that parks unmounts: no OS
// thread sleeps for it, so the scheduler hooks never see its wait. The loader asks for them in StartTiming
// (timing_records.h); the agent then times java.lang.VirtualThread.yieldContinuation, which is on the
// virtual thread's stack for exactly as long as it is unmounted. Its hook class picks waits by duration as
// the scheduler hooks do (a wait of at least the interval always, standing for itself; a shorter one with a
// probability of its share of the interval, standing for the interval), and for each picked wait the agent
// sends a VirtualThreadWait with the virtual thread's Java stack from JVMTI. (The probe's walk cannot see
// it: once remounted, only the top frames are thawed back onto the carrier's stack.)
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "jvmsupport/protocol/wire.h"

namespace jfrbpf::protocol {

// One Java frame: the method and the bytecode index it was at (JVMTI's jlocation; -1 for a native method).
inline constexpr size_t kWaitFrameSize = 12;  // u64 jmethodID, i32 bci

inline constexpr uint32_t kWaitStackNotTaken = 1u << 0;  // over the agent's budget of stacks per second
inline constexpr uint32_t kWaitStackTruncated = 1u << 1;  // deeper than the frames sent

// agent -> loader: one picked wait. Frames are the virtual thread's own, innermost first, from where it
// parked (VirtualThread.park, parkNanos or tryYield) to its continuation's entry.
struct VirtualThreadWait {
  uint64_t startNs = 0;     // the agent's clock, as the wait began
  uint64_t durationNs = 0;  // how long the virtual thread was unmounted
  uint64_t weightNs = 0;    // the wait time it stands for
  uint64_t threadId = 0;    // the virtual thread's java.lang.Thread id
  uint32_t flags = 0;       // kWaitStack*
  std::string_view name;    // the virtual thread's, "" when it has none (modified UTF-8, as JNI gives it)
  uint32_t frameCount = 0;
  std::span<const uint8_t> frames;  // frameCount * kWaitFrameSize bytes

  uint64_t methodIdAt(uint32_t i) const { return readAt<uint64_t>(i * kWaitFrameSize); }
  int32_t bciAt(uint32_t i) const { return readAt<int32_t>(i * kWaitFrameSize + 8); }

 private:
  template <typename T>
  T readAt(size_t offset) const {
    T v{};
    std::memcpy(&v, frames.data() + offset, sizeof v);
    return v;
  }
};

template <typename Sink>
void encode(WireWriter<Sink>& w, const VirtualThreadWait& r) {
  w.u64(r.startNs);
  w.u64(r.durationNs);
  w.u64(r.weightNs);
  w.u64(r.threadId);
  w.u32(r.flags);
  w.string(r.name);
  w.u32(r.frameCount);
  w.bytes(r.frames.data(), r.frames.size());
}

inline bool decode(std::span<const uint8_t> p, VirtualThreadWait& r) {
  WireReader in(p);
  r.startNs = in.u64();
  r.durationNs = in.u64();
  r.weightNs = in.u64();
  r.threadId = in.u64();
  r.flags = in.u32();
  r.name = in.string();
  r.frameCount = in.u32();
  r.frames = in.array(r.frameCount, kWaitFrameSize);
  return in.ok();
}

}  // namespace jfrbpf::protocol
