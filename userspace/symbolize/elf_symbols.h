#pragma once
// Everything the symbolizer keeps about one ELF object: how file offsets map to its addresses, and its
// function symbols (from the object itself and, when it was stripped, from its separate debug file).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "userspace/symbolize/elf_file.h"
#include "userspace/symbolize/symbol_table.h"

namespace jfrbpf::symbolize {

struct ElfSymbols {
  uint32_t id = 0;  // unique per process lifetime, never reused: safe to key memos on
  std::string buildId;
  std::vector<LoadSegment> segments;
  SymbolTable symbols;
  std::string debugFile;  // where the symbols came from when a separate debug file was used

  // Translates an offset in the file into the object's virtual address through the PT_LOAD segment that
  // maps it, which is what a pc in a mapping of that file is relative to.
  std::optional<uint64_t> fileOffsetToAddress(uint64_t fileOffset) const;
  size_t memoryBytes() const;
};

// Builds the symbols of `object`, merged with `debugFile`'s when given (which must belong to `object`), from
// symbol tables of at most maxTableBytes each with their strings.
std::shared_ptr<ElfSymbols> buildElfSymbols(const ElfFile& object, const ElfFile* debugFile,
                                            std::string debugFilePath = {},
                                            uint64_t maxTableBytes = kMaxSymbolTableBytes);

// Parses an ELF image held in memory, without looking for debug files. Throws jfrbpf::Error on malformed
// input. This is the entry point the fuzzer drives.
std::shared_ptr<ElfSymbols> parseElfSymbols(std::span<const uint8_t> image);

// Lower-case hex of raw build-id bytes.
std::string hexBuildId(std::string_view buildId);

}  // namespace jfrbpf::symbolize
