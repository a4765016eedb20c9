#pragma once
// The method-timing table: shared memory that the agent's hook stubs update on every timed invocation and
// the loader reads (jdk.MethodTiming), with no system call on either side.
//
// The agent creates it (a memfd, mapped shared) when timing starts and reports where it is mapped in
// TimingStatus; the loader maps the same pages through /proc/PID/map_files, so what was counted survives
// the JVM's exit. One row per slot of the range the loader assigned to the JVM. Rows are updated with
// relaxed atomics by any thread; a reader may see an invocation counted before its time is added, which
// the next read corrects.
#include <cstddef>
#include <cstdint>

namespace jfrbpf::protocol {

inline constexpr uint64_t kTimingTableMagic = 0x31626174'6d697466ull;  // "ftimtab1", little-endian

// Per thread, invocations open at once; deeper ones are counted (overflow), not timed.
inline constexpr uint32_t kShadowStackDepth = 128;
// An exit looks this far down its thread's shadow stack for its own enter: entries above it are enters
// whose exit never came (a constructor whose super() threw) and are dropped.
inline constexpr uint32_t kShadowStackSearch = 16;

struct TimingCounters {
  uint64_t unmatchedExits = 0;  // exits without their enter (an invocation already running when timing began)
  uint64_t orphanedEnters = 0;  // enters whose exit never came, dropped by a later exit
  uint64_t overflow = 0;        // enters beyond the shadow stack's depth: not timed
  uint64_t badSlot = 0;         // hook index outside this table (instrumentation of an earlier recording)
  uint64_t tracesCalled = 0;    // traced invocations at or over the threshold, handed to the trace probe

  TimingCounters& operator+=(const TimingCounters& other) {
    unmatchedExits += other.unmatchedExits;
    orphanedEnters += other.orphanedEnters;
    overflow += other.overflow;
    badSlot += other.badSlot;
    tracesCalled += other.tracesCalled;
    return *this;
  }
};

struct TimingRow {
  uint64_t invocations = 0;
  uint64_t totalNs = 0;
  uint64_t minNs = 0;  // 0: no invocation yet (a 0 ns invocation counts as 1 ns)
  uint64_t maxNs = 0;
};

struct TimingTableHeader {
  uint64_t magic = kTimingTableMagic;
  uint32_t slotBase = 0;  // row i is slot slotBase + i
  uint32_t slotCount = 0;
  TimingCounters counters;
  uint64_t reserved[9] = {};  // rows start on a cache line
};

static_assert(sizeof(TimingTableHeader) == 128 && sizeof(TimingRow) == 32, "the loader maps this layout as is");

inline size_t timingTableBytes(uint32_t slotCount) {
  return sizeof(TimingTableHeader) + static_cast<size_t>(slotCount) * sizeof(TimingRow);
}

inline TimingRow* timingRows(TimingTableHeader* header) { return reinterpret_cast<TimingRow*>(header + 1); }
inline const TimingRow* timingRows(const TimingTableHeader* header) {
  return reinterpret_cast<const TimingRow*>(header + 1);
}

}  // namespace jfrbpf::protocol
