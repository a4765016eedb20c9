#pragma once
// A process's executable mappings (userspace/proc/maps.h) and the unwind table of each: what the reference
// unwinder searches (and what the BPF per-process mapping list mirrors). Files are opened through
// /proc/PID/map_files, or inside the process's root (userspace/proc/root_files.h) so that a container's
// symlinks cannot send us to a host file; the vDSO is read from the process's memory.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "userspace/unwind/table_cache.h"
#include "userspace/unwind/unwind_table.h"

namespace jfrbpf::unwind {

struct MappedTable {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t bias = 0;  // runtime address = file vaddr + bias
  std::shared_ptr<const UnwindTable> table;
  std::string path;
};

class AddressSpace {
 public:
  void add(MappedTable mapping);
  const MappedTable* find(uint64_t pc) const;
  const std::vector<MappedTable>& mappings() const { return mappings_; }

  // Every executable file mapping of a live process plus its vDSO. Mappings whose file cannot be opened
  // or parsed are skipped, with one line each in problems (when given).
  static AddressSpace forProcess(pid_t pid, TableCache& cache, std::vector<std::string>* problems = nullptr);

 private:
  std::vector<MappedTable> mappings_;  // sorted by start, non-overlapping
};

}  // namespace jfrbpf::unwind
