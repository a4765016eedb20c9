#pragma once
// Allocation sampling (record --alloc): the loader asks with a StartAllocations command; the agent samples
// with JVMTI's SampledObjectAlloc and, for each sampled object, calls the trace stub (hook_stubs.h) with
// kHookAllocation | the object's class id, the time and the sample's weight in bytes, so that the loader's
// uprobe walks the allocating thread's stack as it does a traced call's. The agent answers once with an
// AllocationStatus record. A class the loader has not been told of yet (an array class) gets its Class
// record before its first sample.
#include <cstdint>
#include <span>
#include <string_view>

#include "jvmsupport/protocol/wire.h"

namespace jfrbpf::protocol {

// The hook index of an allocation sample: this flag and the class id (at most kHookSlotMask).
inline constexpr uint32_t kHookAllocation = 1u << 26;

// loader -> agent. Exactly one of the two is set: the mean bytes between samples, or a number of samples per
// second the agent keeps to by moving the interval (JFR's throttle).
struct StartAllocations {
  uint64_t intervalBytes = 0;
  uint32_t samplesPerSecond = 0;
};

enum class AllocationState : uint32_t { kStarted = 1, kUnavailable = 2 };

// agent -> loader.
struct AllocationStatus {
  uint64_t time = 0;
  uint32_t state = 0;          // AllocationState
  uint32_t weightFromCounters = 0;  // 1: weights are the thread's allocated bytes since its previous sample
  uint64_t intervalBytes = 0;  // the interval first set
  std::string_view message;    // kUnavailable: why
};

template <typename Sink>
void encode(WireWriter<Sink>& w, const StartAllocations& r) {
  w.u64(r.intervalBytes);
  w.u32(r.samplesPerSecond);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const AllocationStatus& r) {
  w.u64(r.time);
  w.u32(r.state);
  w.u32(r.weightFromCounters);
  w.u64(r.intervalBytes);
  w.string(r.message);
}

inline bool decode(std::span<const uint8_t> p, StartAllocations& r) {
  WireReader in(p);
  r.intervalBytes = in.u64();
  r.samplesPerSecond = in.u32();
  return in.ok() && (r.intervalBytes == 0) != (r.samplesPerSecond == 0);
}

inline bool decode(std::span<const uint8_t> p, AllocationStatus& r) {
  WireReader in(p);
  r.time = in.u64();
  r.state = in.u32();
  r.weightFromCounters = in.u32();
  r.intervalBytes = in.u64();
  r.message = in.string();
  return in.ok();
}

}  // namespace jfrbpf::protocol
