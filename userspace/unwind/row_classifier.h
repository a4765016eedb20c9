#pragma once
// Turns the DWARF rules at one address into a compact row: which of the few frame shapes the BPF walker
// knows this is, or UNSUPPORTED with the reason. Only exact, known DWARF expressions are accepted (the
// linker's PLT rule and glibc's sigreturn rule); anything else stops the walk rather than being guessed.
#include <cstdint>
#include <optional>
#include <span>

#include "userspace/unwind/cfa_program.h"
#include "userspace/unwind/unwind_table.h"

namespace jfrbpf::unwind {

struct ClassifiedRow {
  RowKind kind = RowKind::kUnsupported;
  uint16_t cfaParam = 0;
  int8_t rbpSlot = JFRBPF_UNWIND_RBP_UNCHANGED;
  std::optional<UnsupportedReason> reason;  // set when kind is kUnsupported
};

ClassifiedRow classifyRules(const FrameRules& rules, bool signalFrame);

// "rsp + 8 + ((rip & 15) >= N) << 3": the CFA of lazy-binding PLT entries as GNU ld writes it (N = 11 for
// classic entries, 9 or 10 for IBT-enabled ones). Returns N.
std::optional<uint8_t> matchPltExpression(std::span<const uint8_t> expression);

// "*(rsp + 160)": glibc's __restore_rt, where rsp points at the ucontext and 160 is uc_mcontext.rsp.
bool matchSigreturnCfaExpression(std::span<const uint8_t> expression);

}  // namespace jfrbpf::unwind
