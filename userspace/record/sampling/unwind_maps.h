#pragma once
// Keeps the BPF walker's native unwind tables in step with the profiled processes: each mapped ELF file's
// table is compiled once (shared across processes by build-id or inode), copied into a range of the BPF
// row array, and each process's executable mappings point at those ranges. Re-synced when a process maps
// new code (dlopen).
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "userspace/record/sampling/bpf_sampler.h"
#include "userspace/unwind/process_maps.h"
#include "userspace/unwind/table_cache.h"

namespace jfrbpf::record {

class UnwindMaps {
 public:
  // `cache`: where the files' tables are compiled and kept (the session's; it may have compiled some ahead).
  UnwindMaps(BpfSampler& sampler, unwind::TableCache& cache) : sampler_(sampler), cache_(cache) {}

  // Loads the tables of every executable mapping of `pid` and publishes its mapping list. Cheap when
  // nothing changed since the last call. Returns one line per problem (files that could not be read).
  std::vector<std::string> syncProcess(pid_t pid);
  void forgetProcess(pid_t pid);

 private:
  struct FileSlot {
    uint64_t fileId = 0;
    uint32_t firstRow = 0;
    uint32_t rowCount = 0;
    uint32_t users = 0;  // processes whose mapping list points here
  };
  struct ProcessState {
    std::vector<const unwind::UnwindTable*> tables;  // tables its mapping list uses
    std::vector<std::shared_ptr<const unwind::UnwindTable>> keepAlive;
    uint64_t mapsSignature = 0;
  };

  const FileSlot* slotFor(const std::shared_ptr<const unwind::UnwindTable>& table);
  void release(const unwind::UnwindTable* table);
  bool allocateRows(uint32_t count, uint32_t& first);
  void freeRows(uint32_t first, uint32_t count);

  BpfSampler& sampler_;
  unwind::TableCache& cache_;
  std::unordered_map<const unwind::UnwindTable*, FileSlot> files_;
  std::unordered_map<pid_t, ProcessState> processes_;
  std::map<uint32_t, uint32_t> freeRanges_;  // first row -> count, coalesced
  bool rowsInitialized_ = false;
  uint64_t nextFileId_ = 1;
};

}  // namespace jfrbpf::record
