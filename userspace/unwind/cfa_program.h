#pragma once
// Runs the CFA program of one FDE (its CIE's initial instructions, then its own) and returns the rule
// table it describes: one row per address where a rule changes. Only the columns an x86_64 frame walk
// needs are kept (CFA, rbp, rsp, return address); every other register's instructions are decoded and
// checked but not stored.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "userspace/unwind/dwarf_cfi.h"

namespace jfrbpf::unwind {

enum class RuleKind : uint8_t {
  kUnspecified,   // no instruction mentioned the register: callee-saved registers keep their value
  kUndefined,
  kSameValue,
  kOffset,        // saved at CFA + value
  kValOffset,     // the value is CFA + value
  kRegister,      // saved in register number value
  kExpression,    // saved at the address the expression computes
  kValExpression, // the value is what the expression computes
};

struct RegisterRule {
  RuleKind kind = RuleKind::kUnspecified;
  int64_t value = 0;
  std::span<const uint8_t> expression;

  bool operator==(const RegisterRule& other) const {
    return kind == other.kind && value == other.value && std::equal(expression.begin(), expression.end(),
                                                                    other.expression.begin(), other.expression.end());
  }
};

struct CfaRule {
  bool isExpression = false;
  bool defined = false;
  uint64_t reg = 0;
  int64_t offset = 0;
  std::span<const uint8_t> expression;

  bool operator==(const CfaRule& other) const {
    return isExpression == other.isExpression && defined == other.defined && reg == other.reg &&
           offset == other.offset &&
           std::equal(expression.begin(), expression.end(), other.expression.begin(), other.expression.end());
  }
};

struct FrameRules {
  CfaRule cfa;
  RegisterRule rbp;
  RegisterRule rsp;
  RegisterRule returnAddress;

  bool operator==(const FrameRules&) const = default;
};

struct CfiRow {
  uint64_t pc = 0;  // the rules hold from here to the next row (or the FDE's end)
  FrameRules rules;
};

struct CfaProgramLimits {
  size_t maxInstructions = 1u << 16;  // per FDE, CIE initial instructions included
  size_t maxStateStack = 64;          // DW_CFA_remember_state depth
  size_t maxRows = 1u << 16;          // per FDE
};

enum class ProgramStatus : uint8_t {
  kOk,
  kMalformed,  // unknown opcode, bad operand, location moving backwards: rows from failedAt are unknown
  kLimit,      // a limit above was reached: rows from failedAt are unknown
};

struct CfaProgramResult {
  std::vector<CfiRow> rows;  // sorted by pc, first row at the FDE's start
  ProgramStatus status = ProgramStatus::kOk;
  uint64_t failedAt = 0;
  size_t instructions = 0;
};

CfaProgramResult runCfaProgram(const Cie& cie, const Fde& fde, const CfiSectionView& section,
                               const CfaProgramLimits& limits);

}  // namespace jfrbpf::unwind
