#include "userspace/unwind/row_classifier.h"

#include <algorithm>
#include <array>

#include "userspace/unwind/dwarf_constants.h"

namespace jfrbpf::unwind {
namespace {

using namespace dwarf;

ClassifiedRow unsupported(UnsupportedReason reason) {
  ClassifiedRow row;
  row.kind = RowKind::kUnsupported;
  row.reason = reason;
  return row;
}

int8_t rbpSlotFor(const RegisterRule& rule) {
  switch (rule.kind) {
    case RuleKind::kUnspecified:
    case RuleKind::kSameValue:
    case RuleKind::kUndefined:  // only outermost frames leave rbp undefined; nothing above reads it
      return JFRBPF_UNWIND_RBP_UNCHANGED;
    case RuleKind::kOffset:
      if (rule.value != 0 && rule.value % 8 == 0 && rule.value / 8 >= -127 && rule.value / 8 <= 127) {
        return static_cast<int8_t>(rule.value / 8);
      }
      return JFRBPF_UNWIND_RBP_LOST;
    default:
      return JFRBPF_UNWIND_RBP_LOST;
  }
}

}  // namespace

std::optional<uint8_t> matchPltExpression(std::span<const uint8_t> expression) {
  // DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_lit<N>; DW_OP_ge; DW_OP_lit3; DW_OP_shl;
  // DW_OP_plus
  static constexpr std::array<uint8_t, 11> kShape = {
      kOpBreg0 + kRegRsp, 8, kOpBreg0 + kRegRip, 0, kOpLit0 + 15, kOpAnd, 0, kOpGe, kOpLit0 + 3, kOpShl, kOpPlus};
  constexpr size_t kThresholdIndex = 6;
  if (expression.size() != kShape.size()) return std::nullopt;
  for (size_t i = 0; i < kShape.size(); ++i) {
    if (i != kThresholdIndex && expression[i] != kShape[i]) return std::nullopt;
  }
  uint8_t threshold = expression[kThresholdIndex];
  if (threshold < kOpLit0 || threshold > kOpLit0 + 15) return std::nullopt;
  return static_cast<uint8_t>(threshold - kOpLit0);
}

bool matchSigreturnCfaExpression(std::span<const uint8_t> expression) {
  // DW_OP_breg7 160 (sleb128 0xa0 0x01); DW_OP_deref
  static constexpr std::array<uint8_t, 4> kShape = {kOpBreg0 + kRegRsp, 0xa0, 0x01, kOpDeref};
  static_assert(JFRBPF_UCONTEXT_RSP_OFFSET == 160);
  return std::equal(expression.begin(), expression.end(), kShape.begin(), kShape.end());
}

ClassifiedRow classifyRules(const FrameRules& rules, bool signalFrame) {
  const CfaRule& cfa = rules.cfa;
  if (cfa.defined && cfa.isExpression) {
    if (signalFrame && matchSigreturnCfaExpression(cfa.expression)) return ClassifiedRow{RowKind::kSignal, 0, 0, {}};
    std::optional<uint8_t> threshold = matchPltExpression(cfa.expression);
    if (!threshold) return unsupported(UnsupportedReason::kCfaExpression);
    if (rules.returnAddress.kind != RuleKind::kOffset || rules.returnAddress.value != -8) {
      return unsupported(UnsupportedReason::kReturnAddressRule);
    }
    return ClassifiedRow{RowKind::kPlt, *threshold, rbpSlotFor(rules.rbp), {}};
  }
  // An undefined return address marks the outermost frame, whatever the CFA says.
  if (rules.returnAddress.kind == RuleKind::kUndefined) return ClassifiedRow{RowKind::kEndOfStack, 0, 0, {}};
  if (!cfa.defined) return unsupported(UnsupportedReason::kCfaRegister);
  RowKind kind;
  if (cfa.reg == kRegRsp) {
    kind = RowKind::kCfaRsp;
  } else if (cfa.reg == kRegRbp) {
    kind = RowKind::kCfaRbp;
  } else {
    return unsupported(UnsupportedReason::kCfaRegister);
  }
  // Offsets are stored in 8-byte units: every push and frame allocation on x86_64 keeps them aligned
  // (on this Debian, 16 of 10 million rsp/rbp rows were not), and frames up to 512 KiB fit.
  if (cfa.offset < 0 || cfa.offset % 8 != 0 || cfa.offset / 8 > UINT16_MAX) {
    return unsupported(UnsupportedReason::kCfaOffsetRange);
  }
  if (rules.returnAddress.kind != RuleKind::kOffset || rules.returnAddress.value != -8) {
    return unsupported(UnsupportedReason::kReturnAddressRule);
  }
  bool rspIsCfa = rules.rsp.kind == RuleKind::kUnspecified ||
                  (rules.rsp.kind == RuleKind::kValOffset && rules.rsp.value == 0);
  if (!rspIsCfa) return unsupported(UnsupportedReason::kStackPointerRule);
  return ClassifiedRow{kind, static_cast<uint16_t>(cfa.offset / 8), rbpSlotFor(rules.rbp), {}};
}

}  // namespace jfrbpf::unwind
