#pragma once
// Function symbols of one ELF object, sorted by address for binary search. Names are stored once,
// NUL-terminated (the demangler needs C strings), in a single buffer.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::symbolize {

class SymbolTable {
 public:
  // How good a name is when several symbols start at the same address; lower wins.
  enum class Binding : uint8_t { kGlobal, kWeak, kLocal };
  struct Match {
    uint32_t index;
    uint64_t offset;  // address - symbol start
  };

  // `size` 0 means unknown: the symbol then extends to the next symbol or `sectionEnd` (0 = unknown).
  void add(uint64_t address, uint64_t size, uint64_t sectionEnd, std::string_view name, bool indirect,
           Binding binding);
  // Sorts, keeps one name per address and fixes each symbol's extent. Call once, after the last add().
  void finalize();

  std::optional<Match> lookup(uint64_t address) const;
  std::string_view name(uint32_t index) const { return {names_.data() + entries_[index].nameOffset, entries_[index].nameLength}; }
  const char* cName(uint32_t index) const { return names_.data() + entries_[index].nameOffset; }
  uint64_t address(uint32_t index) const { return entries_[index].address; }
  size_t size() const { return entries_.size(); }
  size_t memoryBytes() const { return entries_.capacity() * sizeof(Entry) + names_.capacity(); }

 private:
  struct Entry {
    uint64_t address;
    uint64_t end;  // exclusive
    uint32_t nameOffset;
    uint32_t nameLength;
  };
  struct Pending {
    uint64_t address;
    uint64_t size;
    uint64_t sectionEnd;
    uint32_t nameOffset;
    uint32_t nameLength;
    bool indirect;
    Binding binding;
  };

  std::vector<Pending> pending_;
  std::vector<Entry> entries_;
  std::string names_;
};

}  // namespace jfrbpf::symbolize
