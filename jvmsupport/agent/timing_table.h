#pragma once
// The agent's side of the shared timing table (protocol/timing_table.h): anonymous shared memory (a
// memfd) that the loader maps too, through /proc/PID/map_files, so counts survive the JVM's exit.
//
// The mapping is never removed: a method still running when its recording ended exits into it later. A
// later recording reuses it, cleared, when its slots fit, and otherwise gets a larger one (the old one is
// left to the stragglers).
#include <cstddef>
#include <cstdint>

#include "jvmsupport/protocol/timing_table.h"

namespace jfrbpf::agent {

class TimingTable {
 public:
  // Agent thread, when a recording starts timing: a cleared table for slots [slotBase, slotBase +
  // slotCount). Null, with a one-line reason in `error`, when no shared memory could be had.
  protocol::TimingTableHeader* prepare(uint32_t slotBase, uint32_t slotCount, const char*& error);

  uint64_t address() const { return reinterpret_cast<uintptr_t>(header_); }
  uint64_t mappedBytes() const { return bytes_; }

 private:
  protocol::TimingTableHeader* header_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace jfrbpf::agent
