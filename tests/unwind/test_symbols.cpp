#include "tests/unwind/test_symbols.h"

#include <elf.h>
#include <fcntl.h>

#include <algorithm>
#include <cstring>

#include "base/unique_fd.h"
#include "userspace/unwind/byte_source.h"
#include "userspace/unwind/elf_image.h"

namespace jfrbpf::unwind::test {

SymbolTable::SymbolTable(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return;
  ByteSource source = ByteSource::fromFd(fd.get());
  ElfImage image(source);
  for (const char* tableName : {".symtab", ".dynsym"}) {
    const ElfSection* table = image.section(tableName);
    if (table == nullptr || table->type == SHT_NOBITS) continue;
    // Each symbol table's strings are in its companion section of the conventional name.
    std::string stringsName = tableName[1] == 's' ? ".strtab" : ".dynstr";
    const ElfSection* strings = image.section(stringsName);
    if (strings == nullptr) continue;
    std::vector<uint8_t> symbolBytes = image.sectionBytes(*table, 1u << 30);
    std::vector<uint8_t> stringBytes = image.sectionBytes(*strings, 1u << 30);
    for (size_t offset = 0; offset + sizeof(Elf64_Sym) <= symbolBytes.size(); offset += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, symbolBytes.data() + offset, sizeof(symbol));
      if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_value == 0 || symbol.st_name >= stringBytes.size()) {
        continue;
      }
      const char* name = reinterpret_cast<const char*>(stringBytes.data()) + symbol.st_name;
      symbols_.push_back({symbol.st_value, symbol.st_size, std::string(name, strnlen(name, stringBytes.size() - symbol.st_name))});
    }
    if (!symbols_.empty()) break;
  }
  std::sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) { return a.start < b.start; });
}

std::string SymbolTable::nameAt(uint64_t vaddr) const {
  auto after = std::upper_bound(symbols_.begin(), symbols_.end(), vaddr,
                                [](uint64_t value, const Symbol& symbol) { return value < symbol.start; });
  // Symbols may nest or have no size (assembly); take the closest start whose extent covers vaddr.
  for (auto it = after; it != symbols_.begin();) {
    --it;
    if (vaddr < it->start + std::max<uint64_t>(it->size, 1)) return it->name;
    if (after - it > 8) break;
  }
  return {};
}

std::string ProcessSymbolizer::name(uint64_t pc) const {
  const MappedTable* mapping = space_.find(pc);
  if (mapping == nullptr) return {};
  auto& table = tables_[mapping->path];
  if (!table) table = std::make_unique<SymbolTable>(mapping->path);
  return table->nameAt(pc - mapping->bias);
}

}  // namespace jfrbpf::unwind::test
