#pragma once
// Parsing of call frame information sections into CIEs and FDEs: .eh_frame (LSB format: pointer
// encodings, "z" augmentations) and .debug_frame (DWARF 2-5 format: absolute addresses, 32/64-bit
// lengths). The CFA programs themselves are run by cfa_program.h.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "userspace/unwind/byte_reader.h"

namespace jfrbpf::unwind {

class ElfImage;

enum class CfiFormat : uint8_t { kEhFrame, kDebugFrame };

// One CFI section and what is needed to turn its encoded pointers into file virtual addresses.
struct CfiSectionView {
  CfiFormat format = CfiFormat::kEhFrame;
  std::span<const uint8_t> bytes;
  uint64_t vaddr = 0;                      // address of bytes[0] (sh_addr): the base of pcrel pointers
  std::optional<uint64_t> dataRelBase;     // base of datarel pointers when the context defines one
  const ElfImage* image = nullptr;         // for indirect pointers; null: indirect pointers are rejected
};

struct Cie {
  uint8_t version = 0;
  uint8_t addressSize = 8;
  uint8_t fdeEncoding = 0;                 // DW_EH_PE_* of FDE pc_begin / pc_range
  bool hasAugmentationData = false;        // "z": FDEs carry a length-prefixed augmentation block
  bool signalFrame = false;                // "S": FDEs describe a signal trampoline
  uint64_t codeAlignment = 1;
  int64_t dataAlignment = 1;
  uint64_t returnAddressRegister = 0;
  std::span<const uint8_t> instructions;   // the initial instructions, run before every FDE's own
};

struct Fde {
  uint32_t cieIndex = 0;                   // into CfiEntries::cies
  uint64_t pcBegin = 0;
  uint64_t pcEnd = 0;                      // exclusive
  std::span<const uint8_t> instructions;
};

struct CfiEntries {
  std::vector<Cie> cies;
  std::vector<Fde> fdes;
  size_t malformedEntries = 0;             // CIEs/FDEs skipped because they could not be decoded
  bool truncated = false;                  // the walk stopped early (bad length or the entry cap)
};

// Walks the section from its start; entries that cannot be decoded are counted and skipped. At most
// maxEntries CIEs+FDEs are visited, so the work and memory are bounded by the caller.
CfiEntries parseCfiSection(const CfiSectionView& section, size_t maxEntries);

// Where the PT_GNU_EH_FRAME header says .eh_frame starts, and how many FDEs its search table lists.
struct EhFrameHeader {
  uint64_t ehFrameVaddr = 0;
  std::optional<uint64_t> fdeCount;
};
std::optional<EhFrameHeader> parseEhFrameHeader(std::span<const uint8_t> bytes, uint64_t vaddr);

// Reads one DW_EH_PE_* encoded pointer at reader's position. fieldVaddr is the address of that position
// (the pcrel base). Returns nothing when the encoding is unknown, its base is undefined here, or the
// bytes run out. With resolve == false only the size is consumed (for values we skip).
std::optional<uint64_t> readEncodedPointer(ByteReader& reader, uint8_t encoding, uint64_t fieldVaddr,
                                           const CfiSectionView& section, uint8_t addressSize, bool resolve = true);

}  // namespace jfrbpf::unwind
