#pragma once
// The compiled unwind table of one ELF file (rows in the BPF layout of unwind_abi.h) plus what is needed
// to place it in a process: the file's load segments, to turn a mapping into a load bias.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bpf/unwind_abi.h"

namespace jfrbpf::unwind {

using UnwindRow = jfrbpf_unwind_row;
static_assert(sizeof(UnwindRow) == 8, "BPF reads 8-byte rows");

enum class RowKind : uint8_t {
  kNone = JFRBPF_UNWIND_NONE,
  kCfaRsp = JFRBPF_UNWIND_CFA_RSP,
  kCfaRbp = JFRBPF_UNWIND_CFA_RBP,
  kPlt = JFRBPF_UNWIND_PLT,
  kSignal = JFRBPF_UNWIND_SIGNAL,
  kEndOfStack = JFRBPF_UNWIND_END_OF_STACK,
  kUnsupported = JFRBPF_UNWIND_UNSUPPORTED,
  kClone = JFRBPF_UNWIND_CLONE,
};
inline constexpr size_t kRowKindCount = JFRBPF_UNWIND_KIND_COUNT;
const char* rowKindName(RowKind kind);
// e.g. "cfa=rsp+16 rbp=[cfa-16]", "cfa=plt(11)", "end-of-stack": for reports and test messages.
std::string describeRow(const jfrbpf_unwind_row& row);

// Why rows became UNSUPPORTED (counted per row before collapsing; a row can have one reason).
enum class UnsupportedReason : uint8_t {
  kCfaExpression,     // a DWARF expression other than the PLT and sigreturn forms
  kCfaRegister,       // CFA based on a register other than rsp/rbp (e.g. r10 during stack realignment)
  kCfaOffsetRange,    // CFA offset negative, not a multiple of 8, or beyond 512 KiB
  kReturnAddressRule, // return address not saved at cfa-8
  kStackPointerRule,  // an explicit rule for rsp
  kProgramError,      // the CFA program was malformed or hit a limit from this pc on
  kCount,
};
const char* unsupportedReasonName(UnsupportedReason reason);

struct TableStats {
  size_t cies = 0;
  size_t fdes = 0;                 // FDEs compiled (from both sections)
  size_t debugFrameFdes = 0;       // of which from .debug_frame
  size_t overlappingFdes = 0;      // FDEs (partly) shadowed by an earlier one for the same addresses
  size_t malformedEntries = 0;     // CIEs/FDEs that could not be decoded
  size_t droppedFdes = 0;          // FDEs outside the 32-bit pc range of the table
  size_t cfaInstructions = 0;
  bool truncated = false;          // a limit cut the table short (entries, instructions or rows)
  bool debugFrameUnreadable = false;  // .debug_frame present but not decodable (e.g. zstd-compressed)
  std::optional<uint64_t> headerFdeCount;  // what .eh_frame_hdr announces, when present
  std::array<size_t, kRowKindCount> rowsByKind{};
  std::array<uint64_t, kRowKindCount> bytesByKind{};  // code bytes covered by rows of each kind
  std::array<size_t, static_cast<size_t>(UnsupportedReason::kCount)> unsupportedRows{};
};

struct LoadSegment {
  uint64_t vaddr = 0;
  uint64_t offset = 0;
  uint64_t fileSize = 0;
  uint32_t flags = 0;
};

struct UnwindTable {
  std::string buildId;
  uint64_t pcBase = 0;
  std::vector<UnwindRow> rows;
  std::vector<LoadSegment> loads;
  TableStats stats;

  // The row covering file virtual address vaddr, found exactly as the BPF walker does (bounded binary
  // search); null when vaddr lies before the first row or beyond the 32-bit range.
  const UnwindRow* find(uint64_t vaddr) const;

  // Load bias of a mapping of this file: runtime address = file vaddr + bias. mapStart/mapOffset are the
  // mapping's start address and file offset (/proc/PID/maps). Empty when no load segment contains it.
  std::optional<uint64_t> loadBias(uint64_t mapStart, uint64_t mapOffset) const;

  size_t memoryBytes() const { return rows.size() * sizeof(UnwindRow); }
};

// The search on a bare row array, for code that holds rows outside an UnwindTable.
const UnwindRow* findRow(std::span<const UnwindRow> rows, uint32_t pc);

}  // namespace jfrbpf::unwind
