#pragma once
// Where each original bytecode offset lands in the rewritten code. The instrumentation inserts code at the
// start of the method (the entry code), before every return (the exit call) and after the original code
// (the catch-all handler); branches into a return must reach its exit call, so "target" and "instruction"
// differ exactly at returns.
#include <cstdint>
#include <vector>

#include "jvmsupport/classfile/bytes.h"

namespace jfrbpf::classfile {

class OffsetMap {
 public:
  OffsetMap() = default;
  OffsetMap(std::vector<int32_t> instruction, std::vector<int32_t> target)
      : instruction_(std::move(instruction)), target_(std::move(target)) {}

  // The new position of the instruction that started at `oldBci`.
  uint32_t instruction(uint32_t oldBci) const { return lookup(instruction_, oldBci); }
  // Where control reaching `oldBci` now goes: the exit call in front of a return, else the instruction.
  // `oldBci` may be the original code length, which maps to the end of the original code.
  uint32_t target(uint32_t oldBci) const { return lookup(target_, oldBci); }
  // The start of a range that covers the method entry keeps covering it (local variable scopes, lines).
  uint32_t scopeStart(uint32_t oldBci) const { return oldBci == 0 ? 0 : target(oldBci); }

  bool isInstructionStart(uint32_t oldBci) const {
    return oldBci < instruction_.size() && instruction_[oldBci] >= 0;
  }

 private:
  static uint32_t lookup(const std::vector<int32_t>& table, uint32_t oldBci) {
    if (oldBci >= table.size() || table[oldBci] < 0) {
      throw ClassFileError("offset " + std::to_string(oldBci) + " is not an instruction boundary");
    }
    return static_cast<uint32_t>(table[oldBci]);
  }

  std::vector<int32_t> instruction_;  // indexed by old bci (size code_length + 1); -1 inside instructions
  std::vector<int32_t> target_;
};

}  // namespace jfrbpf::classfile
