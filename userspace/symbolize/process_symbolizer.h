#pragma once
// The facade the loader uses for user-space pcs: (pid, pc) -> library + function.
//
// Files are read as the process sees them (map_files, else its root), never through host paths. Each
// process's mappings are read once and re-read, at most every `mapsRefreshInterval`, when a pc falls outside
// every known executable mapping (a dlopen); refresh(pid) forces it. Answers are cached per (pid, pc), parsed
// objects across processes. Not thread-safe: one thread uses an instance (thread-compatible).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "userspace/symbolize/address_space.h"
#include "userspace/symbolize/demangle.h"
#include "userspace/symbolize/elf_loader.h"
#include "userspace/symbolize/native_frame.h"
#include "userspace/symbolize/string_interner.h"

namespace jfrbpf::symbolize {

class ProcessSymbolizer {
 public:
  struct Options {
    std::vector<std::string> debugRoots{"/usr/lib/debug"};  // host directories searched for debug files
    size_t elfCacheBytes = 256u << 20;
    std::chrono::milliseconds mapsRefreshInterval{250};  // a JVM's maps take ~0.3 ms to read
    size_t pcCacheEntriesPerProcess = 1u << 16;  // the cache of a process is emptied when it fills up
  };
  struct Stats {
    uint64_t lookups = 0;
    uint64_t pcCacheHits = 0;
    uint64_t mapsReads = 0;
    ElfLoader::Stats objects;
    size_t elfCacheBytes = 0;
    size_t internedBytes = 0;
  };

  ProcessSymbolizer();
  explicit ProcessSymbolizer(Options options);
  ProcessSymbolizer(const ProcessSymbolizer&) = delete;
  ProcessSymbolizer& operator=(const ProcessSymbolizer&) = delete;
  ~ProcessSymbolizer();

  // Throws nothing but std::bad_alloc. The views in the result live as long as this symbolizer.
  NativeFrame symbolize(int pid, uint64_t pc);
  // Re-reads the process's mappings now (after it is known to have mapped new code).
  void refresh(int pid);
  // Drops everything known about the process (call when it exits; its pid may be reused).
  void forgetProcess(int pid);
  // Memory pressure: drops every process view, parsed object and name (found again as samples need them).
  // Views handed out before are void.
  void dropCaches();
  Stats stats() const;
  // What the caches above hold (symbol tables, names, process views), approximately.
  size_t memoryBytes() const;

 private:
  AddressSpace& spaceOf(int pid);
  void readMaps(int pid, AddressSpace& space);
  NativeFrame resolve(int pid, AddressSpace& space, MappedObject& object, uint64_t pc);
  void load(int pid, AddressSpace& space, MappedObject& object);
  std::string_view symbolName(const ElfSymbols& symbols, uint32_t index);
  std::string_view offsetName(uint64_t offset);

  Options options_;
  ElfLoader loader_;
  StringInterner names_;
  Demangler demangler_;
  std::unordered_map<uint64_t, std::string_view> demangled_;  // (ElfSymbols::id << 32 | index) -> name
  std::unordered_map<int, std::unique_ptr<AddressSpace>> spaces_;
  int lastPid_ = -1;
  AddressSpace* lastSpace_ = nullptr;
  Stats stats_;
};

}  // namespace jfrbpf::symbolize
