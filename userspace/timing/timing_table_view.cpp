#include "userspace/timing/timing_table_view.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <atomic>
#include <string>

#include "base/error.h"
#include "base/unique_fd.h"
#include "userspace/proc/paths.h"

namespace jfrbpf::timing {

namespace {

uint64_t load(const uint64_t& value) {
  // The agent's threads update these with relaxed atomics: read them the same way.
  return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(value)).load(std::memory_order_relaxed);
}

}  // namespace

TimingTableView::TimingTableView(pid_t pid, uint64_t address, uint64_t bytes, uint32_t slotBase, uint32_t slotCount)
    : slotBase_(slotBase), slotCount_(slotCount) {
  const std::string jvm = "JVM " + std::to_string(pid);
  if (bytes < protocol::timingTableBytes(slotCount) || bytes > (uint64_t{1} << 32)) {
    throw Error(jvm + ": the agent reported a method timing table of " + std::to_string(bytes) + " bytes for " +
                std::to_string(slotCount) + " slots");
  }
  const std::string path = proc::mapFilesPath(pid, address, address + bytes);
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw systemError(jvm + ": opening its method timing table (" + path + ", needs CAP_SYS_ADMIN)");
  // A shared mapping of a file that shrinks kills its reader with SIGBUS: only a file sealed against that
  // (as the agent seals its memfd), and as large as the table, is mapped.
  struct stat st {};
  const int seals = fcntl(fd.get(), F_GET_SEALS);
  if (seals < 0 || !(seals & F_SEAL_SHRINK) || fstat(fd.get(), &st) != 0 || static_cast<uint64_t>(st.st_size) < bytes) {
    throw Error(jvm + ": its method timing table is not memory sealed at its size, which the jfrbpf agent makes; "
                "not mapping it (a JVM whose agent is from an older jfrbpf: restart it to time its methods)");
  }
  void* mapped = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (mapped == MAP_FAILED) throw systemError(jvm + ": mapping its method timing table");
  header_ = static_cast<const protocol::TimingTableHeader*>(mapped);
  bytes_ = bytes;
  if (header_->magic != protocol::kTimingTableMagic || header_->slotBase != slotBase ||
      header_->slotCount != slotCount || header_->stripes != protocol::kTimingStripes) {
    munmap(mapped, bytes_);
    header_ = nullptr;
    throw Error(jvm + ": the agent's method timing table is not the one this recording asked for");
  }
}

TimingTableView::~TimingTableView() {
  if (header_ != nullptr) munmap(const_cast<protocol::TimingTableHeader*>(header_), bytes_);
}

MethodStats TimingTableView::read(uint32_t slot) const {
  if (!hasSlot(slot)) return {};
  MethodStats stats;
  // Indexed by the slot count checked when mapping: the header lives in memory the target writes, and a
  // count it changed afterwards would index past the mapping.
  const protocol::TimingRow* rows = protocol::timingRows(header_);
  for (uint32_t stripe = 0; stripe < protocol::kTimingStripes; ++stripe) {
    const protocol::TimingRow& row = rows[static_cast<size_t>(stripe) * slotCount_ + (slot - slotBase_)];
    stats.merge(MethodStats{load(row.invocations), load(row.totalNs), load(row.minNs), load(row.maxNs)});
  }
  return stats;
}

protocol::TimingCounters TimingTableView::counters() const {
  const protocol::TimingCounters& c = header_->counters;
  return {load(c.badSlot), load(c.tracesCalled)};
}

}  // namespace jfrbpf::timing
