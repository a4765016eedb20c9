#include "jvmsupport/classfile/frame_simulator.h"

#include <string>

#include "jvmsupport/classfile/bytes.h"
#include "jvmsupport/classfile/descriptors.h"

namespace jfrbpf::classfile {
namespace {

VType highHalf(const VType& type) {
  return VType::of(type.kind == VType::kLong ? VType::kLongHigh : VType::kDoubleHigh);
}

bool isHigh(const VType& type) { return type.kind == VType::kLongHigh || type.kind == VType::kDoubleHigh; }

bool isReference(const VType& type) {
  return type.kind == VType::kNull || type.kind == VType::kObject || type.kind == VType::kUninitialized ||
         type.kind == VType::kUninitializedThis;
}

[[noreturn]] void cannotFollow(const Instruction& instruction, std::string_view why) {
  throw ClassFileError("cannot compute the frame at bci " + std::to_string(instruction.bci) + ": " + std::string(why));
}

}  // namespace

// The verifier's view of one point in the code, one entry per slot (long/double take two).
class FrameSimulator::State {
 public:
  State(const Frame& frame, uint16_t maxLocals) : maxLocals_(maxLocals) {
    for (const VType& type : frame.locals) {
      locals_.push_back(type);
      if (type.isTwoSlot()) locals_.push_back(highHalf(type));
    }
    if (locals_.size() > maxLocals_) throw ClassFileError("frame has more locals than max_locals");
    locals_.resize(maxLocals_, VType::of(VType::kTop));
    for (const VType& type : frame.stack) push(type);
    for (const VType& type : locals_) thisUninitialized_ = thisUninitialized_ || type.kind == VType::kUninitializedThis;
  }

  bool thisUninitialized() const { return thisUninitialized_; }

  void push(const VType& type) {
    stack_.push_back(type);
    if (type.isTwoSlot()) stack_.push_back(highHalf(type));
  }

  // Pops one value (both slots of a long/double) and returns it.
  VType pop() {
    if (stack_.empty()) throw ClassFileError("operand stack underflow");
    VType top = std::move(stack_.back());
    stack_.pop_back();
    if (!isHigh(top)) return top;
    if (stack_.empty() || !stack_.back().isTwoSlot()) throw ClassFileError("split long/double on the stack");
    VType low = std::move(stack_.back());
    stack_.pop_back();
    return low;
  }
  void pop(size_t values) {
    for (size_t i = 0; i < values; ++i) pop();
  }
  VType popReference() {
    VType value = pop();
    if (!isReference(value)) throw ClassFileError("expected a reference on the operand stack");
    return value;
  }

  // Raw slot moves for the dup/swap family.
  VType popSlot() {
    if (stack_.empty()) throw ClassFileError("operand stack underflow");
    VType top = std::move(stack_.back());
    stack_.pop_back();
    return top;
  }
  void pushSlot(VType type) { stack_.push_back(std::move(type)); }

  const VType& local(uint32_t index) const {
    if (index >= locals_.size()) throw ClassFileError("local variable index beyond max_locals");
    return locals_[index];
  }

  void store(uint32_t index, const VType& type) {
    uint32_t width = type.isTwoSlot() ? 2 : 1;
    if (index + width > locals_.size()) throw ClassFileError("local variable index beyond max_locals");
    // Overwriting either half of a long/double leaves the other half unusable.
    if (index > 0 && locals_[index - 1].isTwoSlot()) locals_[index - 1] = VType::of(VType::kTop);
    if (locals_[index + width - 1].isTwoSlot() && index + width < locals_.size()) {
      locals_[index + width] = VType::of(VType::kTop);
    }
    locals_[index] = type;
    if (width == 2) locals_[index + 1] = highHalf(type);
  }

  // After invokespecial <init>: every copy of the uninitialized reference becomes the initialized type.
  void initialize(const VType& uninitialized, const VType& initialized) {
    if (uninitialized.kind == VType::kUninitializedThis) thisUninitialized_ = false;
    for (VType& slot : locals_) {
      if (slot == uninitialized) slot = initialized;
    }
    for (VType& slot : stack_) {
      if (slot == uninitialized) slot = initialized;
    }
  }

  void checkWellFormedStack() const {
    for (size_t i = 0; i < stack_.size(); ++i) {
      bool high = isHigh(stack_[i]);
      bool afterLow = i > 0 && stack_[i - 1].isTwoSlot();
      if (high != afterLow) throw ClassFileError("dup/swap splits a long/double");
    }
  }

  Frame toFrame(uint32_t offset) const {
    Frame frame;
    frame.offset = offset;
    frame.locals = collapse(locals_);
    while (!frame.locals.empty() && frame.locals.back().kind == VType::kTop) frame.locals.pop_back();
    frame.stack = collapse(stack_);
    return frame;
  }

 private:
  static std::vector<VType> collapse(const std::vector<VType>& slots) {
    std::vector<VType> types;
    for (size_t i = 0; i < slots.size(); ++i) {
      if (isHigh(slots[i])) {
        types.push_back(VType::of(VType::kTop));  // a stray second half is unusable, like top
        continue;
      }
      types.push_back(slots[i]);
      if (slots[i].isTwoSlot()) ++i;
    }
    return types;
  }

  uint16_t maxLocals_;
  std::vector<VType> locals_;
  std::vector<VType> stack_;
  bool thisUninitialized_ = false;
};

namespace {

VType arrayComponent(const VType& array) {
  if (array.kind == VType::kNull) return array;
  if (array.kind != VType::kObject || array.name.size() < 2 || array.name[0] != '[') {
    throw ClassFileError("aaload on a non-array");
  }
  return fieldType(std::string_view(array.name).substr(1));
}

VType newArrayType(uint8_t atype) {
  static constexpr const char* kNames[] = {"[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J"};
  if (atype < 4 || atype > 11) throw ClassFileError("invalid newarray type");
  return VType::object(kNames[atype - 4]);
}

VType constantType(const ConstantPool& pool, uint32_t index, bool twoSlot) {
  switch (pool.tagAt(index)) {
    case tag::kInteger:
      return VType::of(VType::kInteger);
    case tag::kFloat:
      return VType::of(VType::kFloat);
    case tag::kLong:
      return VType::of(VType::kLong);
    case tag::kDouble:
      return VType::of(VType::kDouble);
    case tag::kString:
      return VType::object("java/lang/String");
    case tag::kClass:
      return VType::object("java/lang/Class");
    case tag::kMethodType:
      return VType::object("java/lang/invoke/MethodType");
    case tag::kMethodHandle:
      return VType::object("java/lang/invoke/MethodHandle");
    case tag::kDynamic: {
      VType type = fieldType(pool.dynamicDescriptor(index));
      if (type.isTwoSlot() != twoSlot) throw ClassFileError("ldc of a dynamic constant of the wrong size");
      return type;
    }
    default:
      throw ClassFileError("ldc of an unloadable constant");
  }
}

class Simulator {
 public:
  Simulator(FrameSimulator::State& state, std::span<const uint8_t> code, const ConstantPool& pool, std::string_view thisClass)
      : state_(state), code_(code), pool_(pool), thisClass_(thisClass) {}

  void step(const Instruction& in);

 private:
  uint16_t operandU2(const Instruction& in) const { return loadU2(code_, in.bci + 1); }
  uint32_t localIndex(const Instruction& in) const {
    return in.wide ? loadU2(code_, in.bci + 2) : code_[in.bci + 1];
  }
  void load(uint32_t index, VType::Kind expected);
  void invoke(const Instruction& in);

  FrameSimulator::State& state_;
  std::span<const uint8_t> code_;
  const ConstantPool& pool_;
  std::string_view thisClass_;
};

void Simulator::load(uint32_t index, VType::Kind expected) {
  const VType& value = state_.local(index);
  if (expected == VType::kObject ? !isReference(value) : value.kind != expected) {
    throw ClassFileError("load of a local of the wrong type");
  }
  state_.push(value);
}

void Simulator::invoke(const Instruction& in) {
  uint16_t index = operandU2(in);
  std::string_view name;
  std::string_view descriptor;
  if (in.opcode == op::kInvokedynamic) {
    descriptor = pool_.dynamicDescriptor(index);
  } else {
    ConstantPool::MemberRef ref = pool_.memberRef(index);
    name = ref.name;
    descriptor = ref.descriptor;
  }
  MethodType type = parseMethodDescriptor(descriptor);
  state_.pop(type.parameters.size());
  if (in.opcode != op::kInvokestatic && in.opcode != op::kInvokedynamic) {
    VType receiver = state_.popReference();
    if (in.opcode == op::kInvokespecial && name == "<init>") {
      if (receiver.kind == VType::kUninitializedThis) {
        state_.initialize(receiver, VType::object(thisClass_));
      } else if (receiver.kind == VType::kUninitialized) {
        if (receiver.offset + 3 > code_.size() || code_[receiver.offset] != op::kNew) {
          throw ClassFileError("uninitialized type does not refer to a new instruction");
        }
        state_.initialize(receiver, VType::object(pool_.className(loadU2(code_, receiver.offset + 1))));
      }
    }
  }
  if (type.returned) state_.push(*type.returned);
}

void Simulator::step(const Instruction& in) {
  const uint8_t opcode = in.opcode;
  const VType kInt = VType::of(VType::kInteger);
  const VType kFloat = VType::of(VType::kFloat);
  const VType kLong = VType::of(VType::kLong);
  const VType kDouble = VType::of(VType::kDouble);
  switch (opcode) {
    case op::kNop:
      return;
    case op::kAconstNull:
      return state_.push(VType::of(VType::kNull));
    case op::kBipush:
    case op::kSipush:
      return state_.push(kInt);
    case op::kLdc:
      return state_.push(constantType(pool_, code_[in.bci + 1], false));
    case op::kLdcW:
      return state_.push(constantType(pool_, operandU2(in), false));
    case op::kLdc2W:
      return state_.push(constantType(pool_, operandU2(in), true));
    case op::kIload:
      return load(localIndex(in), VType::kInteger);
    case op::kLload:
      return load(localIndex(in), VType::kLong);
    case op::kFload:
      return load(localIndex(in), VType::kFloat);
    case op::kDload:
      return load(localIndex(in), VType::kDouble);
    case op::kAload:
      return load(localIndex(in), VType::kObject);
    case op::kIstore:
      state_.pop();
      return state_.store(localIndex(in), kInt);
    case op::kLstore:
      state_.pop();
      return state_.store(localIndex(in), kLong);
    case op::kFstore:
      state_.pop();
      return state_.store(localIndex(in), kFloat);
    case op::kDstore:
      state_.pop();
      return state_.store(localIndex(in), kDouble);
    case op::kAstore: {
      VType value = state_.popReference();
      return state_.store(localIndex(in), value);
    }
    case op::kIinc:
      if (state_.local(localIndex(in)).kind != VType::kInteger) throw ClassFileError("iinc of a non-int local");
      return;
    case op::kIaload:
    case op::kBaload:
    case op::kCaload:
    case op::kSaload:
      state_.pop(2);
      return state_.push(kInt);
    case op::kLaload:
      state_.pop(2);
      return state_.push(kLong);
    case op::kFaload:
      state_.pop(2);
      return state_.push(kFloat);
    case op::kDaload:
      state_.pop(2);
      return state_.push(kDouble);
    case op::kAaload: {
      state_.pop();
      VType array = state_.popReference();
      return state_.push(arrayComponent(array));
    }
    case op::kPop:
    case op::kPop2:
    case op::kDup:
    case op::kDupX1:
    case op::kDupX2:
    case op::kDup2:
    case op::kDup2X1:
    case op::kDup2X2:
    case op::kSwap: {
      // Slot shuffles: take the top slots, push them back in the documented order (JVMS 6.5).
      auto take = [&](size_t n) {
        std::vector<VType> slots(n);
        for (size_t i = n; i-- > 0;) slots[i] = state_.popSlot();
        return slots;
      };
      auto put = [&](const std::vector<VType>& slots) {
        for (const VType& slot : slots) state_.pushSlot(slot);
      };
      switch (opcode) {
        case op::kPop:
          take(1);
          break;
        case op::kPop2:
          take(2);
          break;
        case op::kDup: {
          auto v = take(1);
          put(v), put(v);
          break;
        }
        case op::kDupX1: {
          auto v1 = take(1), v2 = take(1);
          put(v1), put(v2), put(v1);
          break;
        }
        case op::kDupX2: {
          auto v1 = take(1), v23 = take(2);
          put(v1), put(v23), put(v1);
          break;
        }
        case op::kDup2: {
          auto v = take(2);
          put(v), put(v);
          break;
        }
        case op::kDup2X1: {
          auto v12 = take(2), v3 = take(1);
          put(v12), put(v3), put(v12);
          break;
        }
        case op::kDup2X2: {
          auto v12 = take(2), v34 = take(2);
          put(v12), put(v34), put(v12);
          break;
        }
        default: {  // swap
          auto v1 = take(1), v2 = take(1);
          put(v1), put(v2);
          break;
        }
      }
      return state_.checkWellFormedStack();
    }
    default:
      break;
  }
  if (opcode >= op::kIconstM1 && opcode <= op::kIconst5) return state_.push(kInt);
  if (opcode == op::kLconst0 || opcode == op::kLconst1) return state_.push(kLong);
  if (opcode >= op::kFconst0 && opcode <= op::kFconst2) return state_.push(kFloat);
  if (opcode == op::kDconst0 || opcode == op::kDconst1) return state_.push(kDouble);
  if (opcode >= op::kIload0 && opcode <= op::kAload3) {
    static constexpr VType::Kind kKinds[] = {VType::kInteger, VType::kLong, VType::kFloat, VType::kDouble,
                                             VType::kObject};
    return load((opcode - op::kIload0) % 4, kKinds[(opcode - op::kIload0) / 4]);
  }
  if (opcode >= op::kIstore0 && opcode <= op::kAstore3) {
    uint32_t index = (opcode - op::kIstore0) % 4;
    switch ((opcode - op::kIstore0) / 4) {
      case 0:
        state_.pop();
        return state_.store(index, kInt);
      case 1:
        state_.pop();
        return state_.store(index, kLong);
      case 2:
        state_.pop();
        return state_.store(index, kFloat);
      case 3:
        state_.pop();
        return state_.store(index, kDouble);
      default: {
        VType value = state_.popReference();
        return state_.store(index, value);
      }
    }
  }
  if (opcode >= op::kIastore && opcode <= op::kSastore) return state_.pop(3);
  if (opcode >= 0x60 && opcode <= 0x73) {  // add, sub, mul, div, rem for int, long, float, double
    static constexpr VType::Kind kKinds[] = {VType::kInteger, VType::kLong, VType::kFloat, VType::kDouble};
    state_.pop(2);
    return state_.push(VType::of(kKinds[(opcode - 0x60) % 4]));
  }
  if (opcode >= 0x74 && opcode <= 0x77) {  // neg
    static constexpr VType::Kind kKinds[] = {VType::kInteger, VType::kLong, VType::kFloat, VType::kDouble};
    state_.pop();
    return state_.push(VType::of(kKinds[opcode - 0x74]));
  }
  if (opcode >= 0x78 && opcode <= 0x7d) {  // ishl, lshl, ishr, lshr, iushr, lushr
    state_.pop(2);
    return state_.push((opcode - 0x78) % 2 == 0 ? kInt : kLong);
  }
  if (opcode >= 0x7e && opcode <= 0x83) {  // iand, land, ior, lor, ixor, lxor
    state_.pop(2);
    return state_.push((opcode - 0x7e) % 2 == 0 ? kInt : kLong);
  }
  if (opcode >= 0x85 && opcode <= 0x93) {  // conversions
    static constexpr VType::Kind kResults[] = {
        VType::kLong,    VType::kFloat,   VType::kDouble,  // i2l i2f i2d
        VType::kInteger, VType::kFloat,   VType::kDouble,  // l2i l2f l2d
        VType::kInteger, VType::kLong,    VType::kDouble,  // f2i f2l f2d
        VType::kInteger, VType::kLong,    VType::kFloat,   // d2i d2l d2f
        VType::kInteger, VType::kInteger, VType::kInteger  // i2b i2c i2s
    };
    state_.pop();
    return state_.push(VType::of(kResults[opcode - 0x85]));
  }
  if (opcode >= 0x94 && opcode <= 0x98) {  // lcmp, fcmpl, fcmpg, dcmpl, dcmpg
    state_.pop(2);
    return state_.push(kInt);
  }
  if (opcode >= op::kIfeq && opcode <= 0x9e) return state_.pop(1);
  if (opcode >= 0x9f && opcode <= op::kIfAcmpne) return state_.pop(2);
  if (opcode == op::kIfnull || opcode == op::kIfnonnull) {
    state_.popReference();
    return;
  }
  switch (opcode) {
    case op::kGetstatic:
      return state_.push(fieldType(pool_.memberRef(operandU2(in)).descriptor));
    case op::kPutstatic:
      return state_.pop(1);
    case op::kGetfield: {
      VType type = fieldType(pool_.memberRef(operandU2(in)).descriptor);
      state_.popReference();
      return state_.push(type);
    }
    case op::kPutfield:
      state_.pop(1);
      state_.popReference();
      return;
    case op::kInvokevirtual:
    case op::kInvokespecial:
    case op::kInvokestatic:
    case op::kInvokeinterface:
    case op::kInvokedynamic:
      return invoke(in);
    case op::kNew:
      pool_.className(operandU2(in));
      return state_.push(VType::uninitialized(in.bci));
    case op::kNewarray:
      state_.pop(1);
      return state_.push(newArrayType(code_[in.bci + 1]));
    case op::kAnewarray: {
      std::string_view component = pool_.className(operandU2(in));
      state_.pop(1);
      std::string name = component.starts_with('[') ? "[" + std::string(component) : "[L" + std::string(component) + ";";
      return state_.push(VType::object(name));
    }
    case op::kArraylength:
      state_.popReference();
      return state_.push(kInt);
    case op::kCheckcast: {
      std::string_view name = pool_.className(operandU2(in));
      state_.popReference();
      return state_.push(VType::object(name));
    }
    case op::kInstanceof:
      pool_.className(operandU2(in));
      state_.popReference();
      return state_.push(kInt);
    case op::kMonitorenter:
    case op::kMonitorexit:
      state_.popReference();
      return;
    case op::kMultianewarray: {
      std::string_view name = pool_.className(operandU2(in));
      uint8_t dimensions = code_[in.bci + 3];
      if (dimensions == 0) throw ClassFileError("multianewarray with zero dimensions");
      state_.pop(dimensions);
      return state_.push(VType::object(name));
    }
    default:
      cannotFollow(in, "control transfer or subroutine inside straight-line code");
  }
}

}  // namespace

FrameSimulator::FrameSimulator(const ConstantPool& pool, std::span<const uint8_t> code, std::string_view thisClass,
                               uint16_t maxLocals)
    : pool_(pool), code_(code), thisClass_(thisClass), maxLocals_(maxLocals) {}

FrameSimulator::~FrameSimulator() = default;

void FrameSimulator::reset(const Frame& frame) { state_ = std::make_unique<State>(frame, maxLocals_); }

void FrameSimulator::step(const Instruction& instruction) {
  if (!state_) throw ClassFileError("internal: frame simulation without a starting frame");
  // Only conditional branches among the control transfers fall through to the next instruction.
  if (endsBasicBlock(instruction.opcode) || instruction.opcode == op::kJsr || instruction.opcode == op::kJsrW) {
    cannotFollow(instruction, "control transfer or subroutine inside straight-line code");
  }
  Simulator(*state_, code_, pool_, thisClass_).step(instruction);
}

Frame FrameSimulator::frame(uint32_t offset) const { return state_->toFrame(offset); }

bool FrameSimulator::thisUninitialized() const { return state_->thisUninitialized(); }

bool FrameSimulator::localIsUninitializedThis(uint32_t index) const {
  return state_->local(index).kind == VType::kUninitializedThis;
}

}  // namespace jfrbpf::classfile
