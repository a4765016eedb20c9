#pragma once
// Turns a process's executable mapping into the symbols of the object behind it: opens the file the way
// the process sees it, reuses a cached parse when the same object (by file identity or build-id) was
// seen before, and falls back to a verified separate debug file when the object is stripped.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "userspace/proc/maps.h"
#include "userspace/symbolize/debug_file_finder.h"
#include "userspace/symbolize/elf_cache.h"
#include "userspace/symbolize/elf_symbols.h"

namespace jfrbpf::symbolize {

class ElfLoader {
 public:
  struct Stats {
    uint64_t objectsParsed = 0;
    uint64_t cacheHits = 0;
    uint64_t failures = 0;  // unreadable or not ELF
    uint64_t debugFilesUsed = 0;
  };

  // What one object's symbol tables may take while they are read is what the cache may hold.
  ElfLoader(std::vector<std::string> debugRoots, size_t cacheBytes);

  // Symbols of the file behind `mapping` of process `pid`; nullptr when it cannot be read or is not ELF.
  // `rootFd` is the process's /proc/PID/root (or -1).
  std::shared_ptr<const ElfSymbols> loadMappedFile(int pid, const proc::Mapping& mapping, int rootFd);
  // Symbols of the process's vDSO, read from its memory (or taken from our own identical-sized vDSO).
  std::shared_ptr<const ElfSymbols> loadVdso(int pid, const proc::Mapping& mapping);

  const Stats& stats() const { return stats_; }
  const ElfCache& cache() const { return cache_; }
  void dropCache() { cache_.clear(); }

 private:
  std::shared_ptr<const ElfSymbols> parseAndCache(ElfFile object, const std::string& fileKey,
                                                  const std::string& objectPath, int rootFd);

  DebugFileFinder debugFiles_;
  ElfCache cache_;
  uint64_t maxTableBytes_;
  Stats stats_;
};

}  // namespace jfrbpf::symbolize
