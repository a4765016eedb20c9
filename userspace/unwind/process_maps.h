#pragma once
// A process's executable mappings and the unwind table of each: what the reference unwinder searches
// (and what the BPF per-process mapping list mirrors). Files are opened through /proc/PID/map_files, or
// inside the process's root with openat2(RESOLVE_IN_ROOT) so that a container's symlinks cannot send us
// to a host file; the vDSO is read from the process's memory.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "userspace/unwind/table_cache.h"
#include "userspace/unwind/unwind_table.h"

namespace jfrbpf::unwind {

struct MapsEntry {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t offset = 0;
  uint64_t inode = 0;
  bool executable = false;
  std::string path;  // may be empty, "[vdso]", or end in " (deleted)"
};

// Parses /proc/PID/maps text; malformed lines are skipped.
std::vector<MapsEntry> parseMaps(std::string_view text);
// Throws jfrbpf::Error when the process is gone or its maps are unreadable.
std::vector<MapsEntry> readProcessMaps(pid_t pid);

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
