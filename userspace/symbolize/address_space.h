#pragma once
// One process as the symbolizer sees it: its executable mappings (sorted, binary-searched), the objects
// behind them (loaded on first use), and the answers already given for its pcs.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/unique_fd.h"
#include "userspace/proc/maps.h"
#include "userspace/symbolize/elf_symbols.h"
#include "userspace/symbolize/native_frame.h"
#include "userspace/symbolize/string_interner.h"

namespace jfrbpf::symbolize {

struct MappedObject {
  proc::Mapping mapping;
  std::string_view library;  // interned display name
  bool loadAttempted = false;
  std::shared_ptr<const ElfSymbols> symbols;  // nullptr until loaded, or when not an ELF object
};

class AddressSpace {
 public:
  // Installs a fresh reading of the maps. Objects already loaded for identical mappings are kept; the pc
  // cache is dropped because any answer may have changed.
  void replaceMappings(std::vector<proc::Mapping> mappings, StringInterner& names);
  MappedObject* find(uint64_t pc);
  size_t mappingCount() const { return objects_.size(); }

  std::unordered_map<uint64_t, NativeFrame> pcCache;
  std::chrono::steady_clock::time_point lastMapsRead{};
  bool gone = false;
  UniqueFd root;  // /proc/PID/root, opened when first needed
  bool rootOpened = false;

 private:
  std::vector<MappedObject> objects_;  // executable mappings only, sorted by start
};

// The name a frame in this mapping shows as its library (class).
std::string_view libraryName(const proc::Mapping& mapping);

}  // namespace jfrbpf::symbolize
