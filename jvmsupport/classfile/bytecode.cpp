#include "jvmsupport/classfile/bytecode.h"

#include <array>

#include "jvmsupport/classfile/bytes.h"

namespace jfrbpf::classfile {
namespace {

// Fixed instruction lengths by opcode; 0 = invalid opcode, 0xff = variable length (switches, wide).
constexpr std::array<uint8_t, 256> makeLengths() {
  std::array<uint8_t, 256> lengths{};
  for (int i = 0x00; i <= 0x0f; ++i) lengths[i] = 1;
  lengths[0x10] = 2;  // bipush
  lengths[0x11] = 3;  // sipush
  lengths[0x12] = 2;  // ldc
  lengths[0x13] = 3;  // ldc_w
  lengths[0x14] = 3;  // ldc2_w
  for (int i = 0x15; i <= 0x19; ++i) lengths[i] = 2;  // xload index
  for (int i = 0x1a; i <= 0x35; ++i) lengths[i] = 1;  // xload_n, xaload
  for (int i = 0x36; i <= 0x3a; ++i) lengths[i] = 2;  // xstore index
  for (int i = 0x3b; i <= 0x83; ++i) lengths[i] = 1;  // xstore_n, xastore, stack, arithmetic
  lengths[0x84] = 3;                                  // iinc
  for (int i = 0x85; i <= 0x98; ++i) lengths[i] = 1;  // conversions, comparisons
  for (int i = 0x99; i <= 0xa8; ++i) lengths[i] = 3;  // if*, goto, jsr
  lengths[0xa9] = 2;                                  // ret
  lengths[0xaa] = 0xff;                               // tableswitch
  lengths[0xab] = 0xff;                               // lookupswitch
  for (int i = 0xac; i <= 0xb1; ++i) lengths[i] = 1;  // returns
  for (int i = 0xb2; i <= 0xb8; ++i) lengths[i] = 3;  // fields, invokevirtual/special/static
  lengths[0xb9] = 5;                                  // invokeinterface
  lengths[0xba] = 5;                                  // invokedynamic
  lengths[0xbb] = 3;                                  // new
  lengths[0xbc] = 2;                                  // newarray
  lengths[0xbd] = 3;                                  // anewarray
  lengths[0xbe] = 1;                                  // arraylength
  lengths[0xbf] = 1;                                  // athrow
  lengths[0xc0] = 3;                                  // checkcast
  lengths[0xc1] = 3;                                  // instanceof
  lengths[0xc2] = 1;                                  // monitorenter
  lengths[0xc3] = 1;                                  // monitorexit
  lengths[0xc4] = 0xff;                               // wide
  lengths[0xc5] = 4;                                  // multianewarray
  lengths[0xc6] = 3;                                  // ifnull
  lengths[0xc7] = 3;                                  // ifnonnull
  lengths[0xc8] = 5;                                  // goto_w
  lengths[0xc9] = 5;                                  // jsr_w
  return lengths;
}
constexpr std::array<uint8_t, 256> kLengths = makeLengths();

bool isWidenable(uint8_t opcode) {
  return (opcode >= op::kIload && opcode <= op::kAload) || (opcode >= op::kIstore && opcode <= op::kAstore) ||
         opcode == op::kRet || opcode == op::kIinc;
}

Instruction decodeAt(std::span<const uint8_t> code, uint32_t bci) {
  uint8_t opcode = code[bci];
  uint8_t fixed = kLengths[opcode];
  if (fixed == 0) throw ClassFileError("invalid opcode " + std::to_string(opcode) + " at " + std::to_string(bci));
  if (fixed != 0xff) return Instruction{bci, fixed, opcode, false};
  if (opcode == op::kWide) {
    if (bci + 1 >= code.size()) throw ClassFileError("truncated wide instruction");
    uint8_t modified = code[bci + 1];
    if (!isWidenable(modified)) throw ClassFileError("invalid wide instruction at " + std::to_string(bci));
    return Instruction{bci, modified == op::kIinc ? 6u : 4u, modified, true};
  }
  uint32_t base = bci + 1 + switchPadding(bci);
  uint64_t length;
  if (opcode == op::kTableswitch) {
    int32_t low = loadS4(code, base + 4);
    int32_t high = loadS4(code, base + 8);
    if (low > high) throw ClassFileError("tableswitch with low > high");
    length = base - bci + 12 + 4 * (static_cast<uint64_t>(static_cast<int64_t>(high) - low) + 1);
  } else {
    int32_t pairs = loadS4(code, base + 4);
    if (pairs < 0) throw ClassFileError("lookupswitch with a negative pair count");
    length = base - bci + 8 + 8 * static_cast<uint64_t>(pairs);
  }
  if (length > code.size() - bci) throw ClassFileError("truncated switch instruction");
  return Instruction{bci, static_cast<uint32_t>(length), opcode, false};
}

}  // namespace

std::vector<Instruction> decodeInstructions(std::span<const uint8_t> code) {
  std::vector<Instruction> instructions;
  uint32_t bci = 0;
  while (bci < code.size()) {
    Instruction instruction = decodeAt(code, bci);
    if (instruction.length > code.size() - bci) throw ClassFileError("truncated instruction at end of code");
    instructions.push_back(instruction);
    bci += instruction.length;
  }
  return instructions;
}

std::vector<int64_t> branchTargets(std::span<const uint8_t> code, const Instruction& instruction) {
  const int64_t bci = instruction.bci;
  const uint8_t opcode = instruction.opcode;
  if (isConditionalBranch(opcode) || opcode == op::kGoto || opcode == op::kJsr) {
    return {bci + static_cast<int16_t>(loadU2(code, bci + 1))};
  }
  if (opcode == op::kGotoW || opcode == op::kJsrW) return {bci + loadS4(code, bci + 1)};
  if (opcode != op::kTableswitch && opcode != op::kLookupswitch) return {};
  uint32_t base = instruction.bci + 1 + switchPadding(instruction.bci);
  std::vector<int64_t> targets{bci + loadS4(code, base)};
  if (opcode == op::kTableswitch) {
    int64_t count = static_cast<int64_t>(loadS4(code, base + 8)) - loadS4(code, base + 4) + 1;
    for (int64_t i = 0; i < count; ++i) targets.push_back(bci + loadS4(code, base + 12 + 4 * i));
  } else {
    int32_t pairs = loadS4(code, base + 4);
    for (int32_t i = 0; i < pairs; ++i) targets.push_back(bci + loadS4(code, base + 8 + 8 * i + 4));
  }
  return targets;
}

}  // namespace jfrbpf::classfile
