#pragma once
// Computes the verification types at every instruction of a method that has a StackMapTable: between two
// frames the code is straight-line, so the type-checking verifier's transfer rules (JVMS 4.10.1.9) applied
// from the last frame give the exact state, without any merging. The rewriter needs this for the frame of
// a branch target created by widening, and to tell which instructions of a constructor run before `this`
// is initialized.
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "jvmsupport/classfile/bytecode.h"
#include "jvmsupport/classfile/constant_pool.h"
#include "jvmsupport/classfile/stack_map.h"

namespace jfrbpf::classfile {

// A linear walk over a method: reset() at every stack map frame (and at the method entry), step() over
// each instruction in between. Throws ClassFileError when an instruction cannot be followed (jsr/ret,
// stack underflow, operands of the wrong kind, malformed constants).
class FrameSimulator {
 public:
  FrameSimulator(const ConstantPool& pool, std::span<const uint8_t> code, std::string_view thisClass,
                 uint16_t maxLocals);
  ~FrameSimulator();
  FrameSimulator(const FrameSimulator&) = delete;
  FrameSimulator& operator=(const FrameSimulator&) = delete;

  // The state holds `frame`; `this` counts as uninitialized when a local is uninitializedThis (the
  // verifier's flagThisUninit).
  void reset(const Frame& frame);
  // Applies an instruction that falls through to the next one (conditional branches included).
  void step(const Instruction& instruction);

  Frame frame(uint32_t offset) const;  // the current state as a stack map frame at `offset`
  bool thisUninitialized() const;
  bool localIsUninitializedThis(uint32_t index) const;

  class State;  // defined in the .cpp

 private:
  const ConstantPool& pool_;
  std::span<const uint8_t> code_;
  std::string_view thisClass_;
  uint16_t maxLocals_;
  std::unique_ptr<State> state_;
};

}  // namespace jfrbpf::classfile
