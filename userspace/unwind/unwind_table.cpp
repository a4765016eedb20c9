#include "userspace/unwind/unwind_table.h"

#include <elf.h>

namespace jfrbpf::unwind {

const char* rowKindName(RowKind kind) {
  switch (kind) {
    case RowKind::kNone: return "none";
    case RowKind::kCfaRsp: return "cfa=rsp+off";
    case RowKind::kCfaRbp: return "cfa=rbp+off";
    case RowKind::kPlt: return "plt";
    case RowKind::kSignal: return "signal";
    case RowKind::kEndOfStack: return "end-of-stack";
    case RowKind::kUnsupported: return "unsupported";
    case RowKind::kClone: return "clone";
  }
  return "?";
}

std::string describeRow(const UnwindRow& row) {
  auto kind = static_cast<RowKind>(row.kind);
  std::string text;
  switch (kind) {
    case RowKind::kCfaRsp: text = "cfa=rsp+" + std::to_string(row.cfa_param * 8); break;
    case RowKind::kCfaRbp: text = "cfa=rbp+" + std::to_string(row.cfa_param * 8); break;
    case RowKind::kPlt: text = "cfa=plt(" + std::to_string(row.cfa_param) + ")"; break;
    case RowKind::kClone: text = "clone cfa=rsp+" + std::to_string(row.cfa_param * 8); break;
    default: return rowKindName(kind);
  }
  if (row.rbp_slot == JFRBPF_UNWIND_RBP_LOST) {
    text += " rbp=lost";
  } else if (row.rbp_slot != JFRBPF_UNWIND_RBP_UNCHANGED) {
    text += " rbp=[cfa" + std::to_string(row.rbp_slot * 8) + "]";
  }
  return text;
}

const char* unsupportedReasonName(UnsupportedReason reason) {
  switch (reason) {
    case UnsupportedReason::kCfaExpression: return "cfa-expression";
    case UnsupportedReason::kCfaRegister: return "cfa-register";
    case UnsupportedReason::kCfaOffsetRange: return "cfa-offset-range";
    case UnsupportedReason::kReturnAddressRule: return "return-address-rule";
    case UnsupportedReason::kStackPointerRule: return "rsp-rule";
    case UnsupportedReason::kProgramError: return "program-error";
    case UnsupportedReason::kCount: break;
  }
  return "?";
}

const UnwindRow* findRow(std::span<const UnwindRow> rows, uint32_t pc) {
  // Same shape as the BPF loop: a fixed iteration bound, valid because tables hold at most
  // JFRBPF_UNWIND_MAX_ROWS rows (2^20 rows need 21 halvings of [0, count]).
  size_t low = 0;
  size_t high = rows.size();
  for (int step = 0; step < JFRBPF_UNWIND_SEARCH_STEPS && low < high; ++step) {
    size_t middle = low + (high - low) / 2;
    if (rows[middle].pc <= pc) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  if (low < high || low == 0) return nullptr;
  return &rows[low - 1];
}

const UnwindRow* UnwindTable::find(uint64_t vaddr) const {
  if (vaddr < pcBase || vaddr - pcBase > UINT32_MAX) return nullptr;
  return findRow(rows, static_cast<uint32_t>(vaddr - pcBase));
}

std::optional<uint64_t> UnwindTable::loadBias(uint64_t mapStart, uint64_t mapOffset) const {
  // The kernel maps page-aligned pieces of each segment, so the mapping's offset falls inside a load
  // segment's file range rounded down to its page; vaddr and offset stay congruent within it. Around a
  // page shared by two segments the executable one wins, since code is what gets unwound.
  constexpr uint64_t kPage = 4096;
  for (bool executableOnly : {true, false}) {
    for (const LoadSegment& segment : loads) {
      if (executableOnly && (segment.flags & PF_X) == 0) continue;
      uint64_t pageOffset = segment.offset & ~(kPage - 1);
      if (mapOffset < pageOffset || mapOffset >= segment.offset + segment.fileSize) continue;
      uint64_t vaddrAtMapStart = segment.vaddr - segment.offset + mapOffset;
      return mapStart - vaddrAtMapStart;
    }
  }
  return std::nullopt;
}

}  // namespace jfrbpf::unwind
