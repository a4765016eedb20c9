#pragma once
// The loader's view of a JVM's timing table (jvmsupport/protocol/timing_table.h): the agent's shared
// memory, mapped read-only here through /proc/PID/map_files, so a reading costs no system call and what
// was counted stays readable after the JVM exits.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "jvmsupport/protocol/timing_table.h"
#include "userspace/timing/method_statistics.h"

namespace jfrbpf::timing {

class TimingTableView {
 public:
  // Maps the table the agent of process `pid` reported at [address, address + bytes). Throws
  // jfrbpf::Error when it cannot be opened, or is not a timing table for these slots.
  TimingTableView(pid_t pid, uint64_t address, uint64_t bytes, uint32_t slotBase, uint32_t slotCount);
  ~TimingTableView();
  TimingTableView(const TimingTableView&) = delete;
  TimingTableView& operator=(const TimingTableView&) = delete;

  bool hasSlot(uint32_t slot) const { return slot >= slotBase_ && slot - slotBase_ < slotCount_; }
  // A slot's statistics so far (empty for a slot outside the table).
  MethodStats read(uint32_t slot) const;
  protocol::TimingCounters counters() const;

 private:
  const protocol::TimingTableHeader* header_ = nullptr;
  size_t bytes_ = 0;
  uint32_t slotBase_ = 0;
  uint32_t slotCount_ = 0;
};

}  // namespace jfrbpf::timing
