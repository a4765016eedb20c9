#include "jvmsupport/agent/loaded_symbols.h"

#include <cstring>

namespace jfrbpf::agent {

namespace {

// A hash chain longer than this means a corrupt table.
constexpr uint32_t kMaxChain = 1u << 20;

struct Search {
  uintptr_t address;
  uintptr_t base = 0;
  const ElfW(Dyn)* dynamic = nullptr;
  bool found = false;
};

int visit(dl_phdr_info* info, size_t, void* data) {
  Search& search = *static_cast<Search*>(data);
  bool contains = false;
  const ElfW(Dyn)* dynamic = nullptr;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && search.address >= start && search.address - start < ph.p_memsz) contains = true;
    if (ph.p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(start);
  }
  if (!contains) return 0;
  search.base = info->dlpi_addr;
  search.dynamic = dynamic;
  search.found = true;
  return 1;
}

}  // namespace

bool LoadedSymbols::init(const void* addressInside) {
  Search search{reinterpret_cast<uintptr_t>(addressInside)};
  dl_iterate_phdr(visit, &search);
  if (!search.found || search.dynamic == nullptr) return false;
  base_ = search.base;
  // glibc relocates these entries in place on most targets; where it does not, they are still offsets.
  auto pointer = [&](ElfW(Addr) value) { return value < base_ ? base_ + value : value; };
  for (const ElfW(Dyn)* d = search.dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: symbols_ = reinterpret_cast<const ElfW(Sym)*>(pointer(d->d_un.d_ptr)); break;
      case DT_STRTAB: strings_ = reinterpret_cast<const char*>(pointer(d->d_un.d_ptr)); break;
      case DT_STRSZ: stringsSize_ = d->d_un.d_val; break;
      case DT_GNU_HASH: gnuHash_ = reinterpret_cast<const uint32_t*>(pointer(d->d_un.d_ptr)); break;
      case DT_HASH: sysvHash_ = reinterpret_cast<const uint32_t*>(pointer(d->d_un.d_ptr)); break;
      default: break;
    }
  }
  return symbols_ != nullptr && strings_ != nullptr && stringsSize_ > 0 && (gnuHash_ != nullptr || sysvHash_ != nullptr);
}

bool LoadedSymbols::matches(const ElfW(Sym)& symbol, const char* name) const {
  if (symbol.st_name >= stringsSize_ || symbol.st_shndx == SHN_UNDEF || symbol.st_value == 0) return false;
  size_t length = std::strlen(name);
  return symbol.st_name + length < stringsSize_ && std::memcmp(strings_ + symbol.st_name, name, length + 1) == 0;
}

const ElfW(Sym)* LoadedSymbols::lookupGnu(const char* name) const {
  uint32_t buckets = gnuHash_[0], symbolOffset = gnuHash_[1], bloomWords = gnuHash_[2];
  if (buckets == 0) return nullptr;
  const uint32_t* bucket = reinterpret_cast<const uint32_t*>(reinterpret_cast<const ElfW(Addr)*>(gnuHash_ + 4) + bloomWords);
  const uint32_t* chain = bucket + buckets;
  uint32_t hash = 5381;
  for (const char* c = name; *c != '\0'; ++c) hash = hash * 33 + static_cast<uint8_t>(*c);
  uint32_t index = bucket[hash % buckets];
  if (index < symbolOffset) return nullptr;
  for (uint32_t steps = 0; steps < kMaxChain; ++steps, ++index) {
    uint32_t entry = chain[index - symbolOffset];
    if ((entry | 1) == (hash | 1) && matches(symbols_[index], name)) return &symbols_[index];
    if ((entry & 1) != 0) break;
  }
  return nullptr;
}

const ElfW(Sym)* LoadedSymbols::lookupSysv(const char* name) const {
  uint32_t buckets = sysvHash_[0], chains = sysvHash_[1];
  if (buckets == 0) return nullptr;
  const uint32_t* bucket = sysvHash_ + 2;
  const uint32_t* chain = bucket + buckets;
  uint32_t hash = 0;
  for (const char* c = name; *c != '\0'; ++c) {
    hash = (hash << 4) + static_cast<uint8_t>(*c);
    uint32_t high = hash & 0xf0000000u;
    if (high != 0) hash ^= high >> 24;
    hash &= ~high;
  }
  uint32_t steps = 0;
  for (uint32_t i = bucket[hash % buckets]; i != 0 && i < chains && steps < kMaxChain; i = chain[i], ++steps) {
    if (matches(symbols_[i], name)) return &symbols_[i];
  }
  return nullptr;
}

const void* LoadedSymbols::find(const char* name) const {
  if (symbols_ == nullptr) return nullptr;
  const ElfW(Sym)* symbol = gnuHash_ != nullptr ? lookupGnu(name) : lookupSysv(name);
  return symbol != nullptr ? reinterpret_cast<const void*>(base_ + symbol->st_value) : nullptr;
}

}  // namespace jfrbpf::agent
