#pragma once
// Exported symbols of an already loaded library, found through its dynamic symbol table in memory
// (dl_iterate_phdr, then the GNU or SysV hash table). Unlike dlopen/dlsym this needs no libdl and no
// glibc 2.34 symbol versions, so the agent loads into JVMs on old glibc too.
#include <link.h>

#include <cstddef>
#include <cstdint>

namespace jfrbpf::agent {

class LoadedSymbols {
 public:
  // The loaded object whose segments contain `addressInside`; false if none does or it has no tables.
  bool init(const void* addressInside);
  // The address of the defined symbol `name`, or null.
  const void* find(const char* name) const;

 private:
  const ElfW(Sym)* lookupGnu(const char* name) const;
  const ElfW(Sym)* lookupSysv(const char* name) const;
  bool matches(const ElfW(Sym)& symbol, const char* name) const;

  uintptr_t base_ = 0;
  const ElfW(Sym)* symbols_ = nullptr;
  const char* strings_ = nullptr;
  size_t stringsSize_ = 0;
  const uint32_t* gnuHash_ = nullptr;
  const uint32_t* sysvHash_ = nullptr;
};

}  // namespace jfrbpf::agent
