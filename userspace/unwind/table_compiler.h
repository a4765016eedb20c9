#pragma once
// ELF file -> compact unwind table: finds .eh_frame (by section header, else through PT_GNU_EH_FRAME and
// .eh_frame_hdr) and .debug_frame (the file's own and its separate debug file's), runs every FDE's CFA program, classifies each row, merges the FDEs
// into one sorted table (.eh_frame wins where both describe an address), marks gaps, and collapses
// identical neighbours. All work and memory are bounded by CompileLimits, whatever the input.
#include <cstddef>
#include <cstdint>

#include "userspace/unwind/cfa_program.h"
#include "userspace/unwind/dwarf_cfi.h"
#include "userspace/unwind/elf_image.h"
#include "userspace/unwind/unwind_table.h"

namespace jfrbpf::unwind {

struct CompileLimits {
  // The largest real sections seen: libLLVM-15's .eh_frame, 5 MB and 98,000 FDEs.
  uint64_t maxSectionBytes = 64u << 20;        // per CFI section (decompressed)
  size_t maxEntries = 1u << 20;                // CIEs + FDEs per section
  size_t maxRows = JFRBPF_UNWIND_MAX_ROWS;     // per table, so the BPF search stays bounded
  size_t maxInstructions = 1u << 26;           // CFA instructions per file
  CfaProgramLimits program;                    // per FDE
};

// Throws jfrbpf::Error only when the file itself is unusable (not x86_64 ELF64, truncated headers,
// an oversized or undecodable .eh_frame); broken CIEs/FDEs are skipped and counted in the stats.
UnwindTable compileUnwindTable(const ElfImage& image, const CompileLimits& limits = {});
// The same, adding the .debug_frame of the file's separate debug file (matched by the caller, e.g. by
// build-id) for addresses the file's own sections do not describe.
UnwindTable compileUnwindTable(const ElfImage& image, const ElfImage* debugFile, const CompileLimits& limits = {});

// One raw CFI section, without an ELF file around it (tests, fuzzing). Load segments stay empty.
UnwindTable compileCfiSection(const CfiSectionView& section, const CompileLimits& limits = {});

}  // namespace jfrbpf::unwind
