#pragma once
// The method-timing table: shared memory that the timed methods update on every invocation (the agent's
// hook class, jvmsupport/agent/java/jfrbpf/agent/MethodTimer.java, inlined into them by the JIT) and the
// loader reads (jdk.MethodTiming), with no system call on either side.
//
// The agent creates it (a memfd, mapped shared) when timing starts and reports where it is mapped in
// TimingStatus; the loader maps the same pages through /proc/PID/map_files, so what was counted survives
// the JVM's exit. Each slot of the range the loader assigned to the JVM has a row in each of kTimingStripes
// stripes; a thread counts in the stripe its thread id selects, so threads calling one method rarely share
// a cache line, and the loader sums a slot's rows. Rows are updated with atomic adds and compare-and-set;
// a reader may see an invocation counted before its time is added, which the next read corrects.
#include <cstddef>
#include <cstdint>

namespace jfrbpf::protocol {

inline constexpr uint64_t kTimingTableMagic = 0x32626174'6d697466ull;  // "ftimtab2", little-endian

// A power of two: the stripe is the thread id's low bits.
inline constexpr uint32_t kTimingStripes = 16;

struct TimingCounters {
  uint64_t badSlot = 0;       // hook index outside this table (instrumentation for another JVM's range)
  uint64_t tracesCalled = 0;  // traced invocations at or over the threshold, handed to the trace probe

  TimingCounters& operator+=(const TimingCounters& other) {
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
  uint32_t slotBase = 0;  // row i of each stripe is slot slotBase + i
  uint32_t slotCount = 0;
  uint32_t stripes = kTimingStripes;
  uint32_t reserved0 = 0;
  TimingCounters counters;
  uint64_t reserved[11] = {};  // rows start on a cache line
};

static_assert(sizeof(TimingTableHeader) == 128 && sizeof(TimingRow) == 32, "the loader maps this layout as is");
static_assert((kTimingStripes & (kTimingStripes - 1)) == 0, "stripes are selected by a mask");

inline size_t timingTableBytes(uint32_t slotCount) {
  return sizeof(TimingTableHeader) + static_cast<size_t>(kTimingStripes) * slotCount * sizeof(TimingRow);
}

// Slot row `row` (slot - slotBase) of stripe `stripe`.
inline size_t timingRowIndex(const TimingTableHeader& header, uint32_t stripe, uint32_t row) {
  return static_cast<size_t>(stripe) * header.slotCount + row;
}

inline TimingRow* timingRows(TimingTableHeader* header) { return reinterpret_cast<TimingRow*>(header + 1); }
inline const TimingRow* timingRows(const TimingTableHeader* header) {
  return reinterpret_cast<const TimingRow*>(header + 1);
}

}  // namespace jfrbpf::protocol
