#pragma once
// Minimal ELF symbol lookup for the unwinder tests (.symtab, else .dynsym): enough to name the frames of
// a walked stack. The real symbolizer lives in userspace/symbolize.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "userspace/unwind/process_maps.h"

namespace jfrbpf::unwind::test {

class SymbolTable {
 public:
  explicit SymbolTable(const std::string& path);
  // The function containing file virtual address vaddr, or "" when none does.
  std::string nameAt(uint64_t vaddr) const;

 private:
  struct Symbol {
    uint64_t start;
    uint64_t size;
    std::string name;
  };
  std::vector<Symbol> symbols_;  // sorted by start
};

// Names the frames of a walk: return addresses are looked up at pc - 1, the innermost frame at pc.
class ProcessSymbolizer {
 public:
  explicit ProcessSymbolizer(const AddressSpace& space) : space_(space) {}
  std::string name(uint64_t pc) const;

 private:
  const AddressSpace& space_;
  mutable std::map<std::string, std::unique_ptr<SymbolTable>> tables_;
};

}  // namespace jfrbpf::unwind::test
