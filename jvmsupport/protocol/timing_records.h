#pragma once
// Method timing and tracing over the agent channel (JEP 520's jdk.MethodTiming / jdk.MethodTrace, done from
// outside the JDK).
//
// agent -> loader (record types in stream.h):
//   HookSites     once per session, after Hello: where the trace probe site is (kHelloMethodHooks)
//   TimedMethod   one per method the agent instrumented: its hook index and name
//   TimingSkipped a selected method (or a candidate class) the agent could not instrument, and why
//   TimingStatus  after the loaded classes were instrumented (kApplied, with where the timing table is
//                 mapped: protocol/timing_table.h), or why timing is impossible
// loader -> agent: commands, framed like records ({u32 payload length, u16 type, payload}, no preamble):
//   StartTiming   the filters, the trace threshold and the range of slots the agent may hand out
//
// A hook index is what the rewritten bytecode passes to enter(int)/exit(int): a slot (the method's row in
// the timing table; the loader gives each JVM its own range, so slots are unique in a recording) and flags.
// bpf/method_timer_abi.h spells the same bits for the trace probe program.
//
// With --off-cpu, StartTiming also asks for the waits of virtual threads (virtual_thread_records.h): the
// agent then hooks java.lang.VirtualThread.yieldContinuation, whose invocation lasts exactly as long as the
// virtual thread is unmounted, with kHookVirtualWait.
#include <cstdint>
#include <span>
#include <string_view>

#include "jvmsupport/protocol/stream.h"

namespace jfrbpf::protocol {

inline constexpr uint32_t kHookSlotMask = 0x007fffff;
inline constexpr uint32_t kHookVirtualWait = 1u << 23;  // a virtual thread's unmounted wait (never a trace)
inline constexpr uint32_t kHookTimed = 1u << 24;   // matched the --method-timing filter
inline constexpr uint32_t kHookTraced = 1u << 25;  // matched the --method-trace filter

struct HookSites {
  uint64_t traceSite = 0;  // address of the trace stub's first instruction, a 5-byte NOP
  std::string_view hookClass;  // internal name of the class whose static natives are the stubs
};

struct TimedMethod {
  uint64_t time = 0;
  uint32_t hookIndex = 0;        // slot | kHookTimed | kHookTraced
  uint32_t classModifiers = 0;   // as JVMTI GetClassModifiers reports them for a top-level class
  uint32_t methodModifiers = 0;  // as JVMTI GetMethodModifiers reports them
  std::string_view className;    // internal form, "com/foo/Bar"
  std::string_view methodName;
  std::string_view descriptor;   // "(I)V"
};

struct TimingSkipped {
  uint64_t time = 0;
  std::string_view className;
  std::string_view methodName;  // empty: the class as a whole
  std::string_view descriptor;
  std::string_view reason;
};

enum class TimingState : uint32_t {
  kApplied = 1,      // every loaded class the filters select was instrumented; new ones are as they load
  kUnavailable = 2,  // the JVM cannot retransform classes (message says why); nothing was changed
};

struct TimingStatus {
  uint64_t time = 0;
  uint32_t state = 0;  // TimingState
  uint32_t classesInstrumented = 0;
  uint32_t methodsInstrumented = 0;
  uint32_t methodsSkipped = 0;
  uint32_t classesFailed = 0;  // candidate classes the JVM refused to retransform
  uint64_t tableAddress = 0;   // kApplied: the timing table's mapping in the JVM (protocol/timing_table.h)
  uint64_t tableBytes = 0;     // its length, whole pages
  std::string_view message;
};

// ---- loader -> agent ------------------------------------------------------------------------------------

// kResume: a JVM launched under jfrbpf waits in its VMInit event until the loader can walk its stacks, so
// that its first Java frames are already complete; this lets it go on.
// kReadIterator comes with a file descriptor (SCM_RIGHTS): a BPF iterator the agent reads to its end on its
// own thread, so that the program runs in the JVM's address space (its user memory is the current one), then
// closes. No payload.
// kStartAllocations: allocation_records.h; kStartLocks: lock_records.h.
enum class CommandType : uint16_t {
  kStartTiming = 1,
  kResume = 2,
  kReadIterator = 3,
  kStartAllocations = 4,
  kStartLocks = 5,
};
inline constexpr uint32_t kMaxCommandPayload = 1u << 20;

struct StartTiming {
  uint32_t slotBase = 0;   // first slot the agent may use
  uint32_t slotLimit = 0;  // one past the last (at most kHookSlotMask + 1)
  uint64_t traceThresholdNs = 0;  // shorter traced invocations are not traced
  std::string_view timingFilter;  // JEP 520 filter text; empty selects nothing
  std::string_view traceFilter;
  // The waits of virtual threads: their mean wait time per reported wait (0: every wait), or
  // kNoVirtualThreadWaits.
  uint64_t virtualWaitIntervalNs = UINT64_MAX;
};
inline constexpr uint64_t kNoVirtualThreadWaits = UINT64_MAX;

// ---- encoding -----------------------------------------------------------------------------------------

// Filters may be longer than a u16-length string allows: u32 length, then the bytes.
template <typename Sink>
void encodeLongString(WireWriter<Sink>& w, std::string_view s) {
  w.u32(static_cast<uint32_t>(s.size()));
  w.bytes(s.data(), s.size());
}

inline std::string_view decodeLongString(WireReader& in) {
  uint32_t n = in.u32();
  std::span<const uint8_t> raw = in.bytes(n);
  return {reinterpret_cast<const char*>(raw.data()), raw.size()};
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const HookSites& r) {
  w.u64(r.traceSite);
  w.string(r.hookClass);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const TimedMethod& r) {
  w.u64(r.time);
  w.u32(r.hookIndex);
  w.u32(r.classModifiers);
  w.u32(r.methodModifiers);
  w.string(r.className);
  w.string(r.methodName);
  w.string(r.descriptor);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const TimingSkipped& r) {
  w.u64(r.time);
  w.string(r.className);
  w.string(r.methodName);
  w.string(r.descriptor);
  w.string(r.reason);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const TimingStatus& r) {
  w.u64(r.time);
  w.u32(r.state);
  w.u32(r.classesInstrumented);
  w.u32(r.methodsInstrumented);
  w.u32(r.methodsSkipped);
  w.u32(r.classesFailed);
  w.u64(r.tableAddress);
  w.u64(r.tableBytes);
  w.string(r.message);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const StartTiming& r) {
  w.u32(r.slotBase);
  w.u32(r.slotLimit);
  w.u64(r.traceThresholdNs);
  encodeLongString(w, r.timingFilter);
  encodeLongString(w, r.traceFilter);
  w.u64(r.virtualWaitIntervalNs);
}

// ---- decoding (each side treats the other's bytes as hostile) ---------------------------------------------

inline bool decode(std::span<const uint8_t> p, HookSites& r) {
  WireReader in(p);
  r.traceSite = in.u64();
  r.hookClass = in.string();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, TimedMethod& r) {
  WireReader in(p);
  r.time = in.u64();
  r.hookIndex = in.u32();
  r.classModifiers = in.u32();
  r.methodModifiers = in.u32();
  r.className = in.string();
  r.methodName = in.string();
  r.descriptor = in.string();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, TimingSkipped& r) {
  WireReader in(p);
  r.time = in.u64();
  r.className = in.string();
  r.methodName = in.string();
  r.descriptor = in.string();
  r.reason = in.string();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, TimingStatus& r) {
  WireReader in(p);
  r.time = in.u64();
  r.state = in.u32();
  r.classesInstrumented = in.u32();
  r.methodsInstrumented = in.u32();
  r.methodsSkipped = in.u32();
  r.classesFailed = in.u32();
  r.tableAddress = in.u64();
  r.tableBytes = in.u64();
  r.message = in.string();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, StartTiming& r) {
  WireReader in(p);
  r.slotBase = in.u32();
  r.slotLimit = in.u32();
  r.traceThresholdNs = in.u64();
  r.timingFilter = decodeLongString(in);
  r.traceFilter = decodeLongString(in);
  r.virtualWaitIntervalNs = in.u64();
  return in.ok();
}

}  // namespace jfrbpf::protocol
