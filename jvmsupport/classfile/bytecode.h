#pragma once
// JVM instruction decoding: lengths (including tableswitch/lookupswitch padding and wide forms) and the
// control-flow facts the rewriter needs (branch targets, returns, unconditional transfers).
#include <cstdint>
#include <span>
#include <vector>

namespace jfrbpf::classfile {

namespace op {
inline constexpr uint8_t kNop = 0x00, kAconstNull = 0x01, kIconstM1 = 0x02, kIconst5 = 0x08, kLconst0 = 0x09,
                         kLconst1 = 0x0a, kFconst0 = 0x0b, kFconst2 = 0x0d, kDconst0 = 0x0e, kDconst1 = 0x0f,
                         kBipush = 0x10, kSipush = 0x11, kLdc = 0x12, kLdcW = 0x13, kLdc2W = 0x14;
inline constexpr uint8_t kIload = 0x15, kLload = 0x16, kFload = 0x17, kDload = 0x18, kAload = 0x19,
                         kIload0 = 0x1a, kAload3 = 0x2d, kIaload = 0x2e, kLaload = 0x2f, kFaload = 0x30,
                         kDaload = 0x31, kAaload = 0x32, kBaload = 0x33, kCaload = 0x34, kSaload = 0x35;
inline constexpr uint8_t kIstore = 0x36, kLstore = 0x37, kFstore = 0x38, kDstore = 0x39, kAstore = 0x3a,
                         kIstore0 = 0x3b, kAstore3 = 0x4e, kIastore = 0x4f, kSastore = 0x56;
inline constexpr uint8_t kPop = 0x57, kPop2 = 0x58, kDup = 0x59, kDupX1 = 0x5a, kDupX2 = 0x5b, kDup2 = 0x5c,
                         kDup2X1 = 0x5d, kDup2X2 = 0x5e, kSwap = 0x5f;
inline constexpr uint8_t kIinc = 0x84, kIfeq = 0x99, kIfAcmpne = 0xa6, kGoto = 0xa7, kJsr = 0xa8, kRet = 0xa9,
                         kTableswitch = 0xaa, kLookupswitch = 0xab, kIreturn = 0xac, kReturn = 0xb1;
inline constexpr uint8_t kGetstatic = 0xb2, kPutstatic = 0xb3, kGetfield = 0xb4, kPutfield = 0xb5,
                         kInvokevirtual = 0xb6, kInvokespecial = 0xb7, kInvokestatic = 0xb8,
                         kInvokeinterface = 0xb9, kInvokedynamic = 0xba, kNew = 0xbb, kNewarray = 0xbc,
                         kAnewarray = 0xbd, kArraylength = 0xbe, kAthrow = 0xbf, kCheckcast = 0xc0,
                         kInstanceof = 0xc1, kMonitorenter = 0xc2, kMonitorexit = 0xc3, kWide = 0xc4,
                         kMultianewarray = 0xc5, kIfnull = 0xc6, kIfnonnull = 0xc7, kGotoW = 0xc8, kJsrW = 0xc9;
}  // namespace op

struct Instruction {
  uint32_t bci = 0;
  uint32_t length = 0;
  uint8_t opcode = 0;
  bool wide = false;  // prefixed by `wide` (opcode is then the modified instruction)
};

// Decodes the whole code array; throws ClassFileError on an unknown opcode or a truncated instruction.
std::vector<Instruction> decodeInstructions(std::span<const uint8_t> code);

// Bytes of zero padding after a tableswitch/lookupswitch opcode at `bci`.
inline uint32_t switchPadding(uint32_t bci) { return 3 - (bci % 4); }

inline bool isReturn(uint8_t opcode) { return opcode >= op::kIreturn && opcode <= op::kReturn; }
inline bool isConditionalBranch(uint8_t opcode) {
  return (opcode >= op::kIfeq && opcode <= op::kIfAcmpne) || opcode == op::kIfnull || opcode == op::kIfnonnull;
}
// The conditional branch taken exactly when `opcode` is not.
inline uint8_t invertedCondition(uint8_t opcode) {
  if (opcode == op::kIfnull) return op::kIfnonnull;
  if (opcode == op::kIfnonnull) return op::kIfnull;
  return static_cast<uint8_t>(((opcode - op::kIfeq) ^ 1) + op::kIfeq);
}
// Control never falls through to the next instruction.
inline bool endsBasicBlock(uint8_t opcode) {
  return opcode == op::kGoto || opcode == op::kGotoW || opcode == op::kTableswitch || opcode == op::kLookupswitch ||
         opcode == op::kAthrow || isReturn(opcode) || opcode == op::kRet;
}

// Every branch target of the instruction (absolute bcis), including all switch targets.
std::vector<int64_t> branchTargets(std::span<const uint8_t> code, const Instruction& instruction);

}  // namespace jfrbpf::classfile
