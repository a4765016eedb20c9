#include "jvmsupport/classfile/method_rewriter.h"

#include <algorithm>
#include <limits>
#include <map>

#include "jvmsupport/classfile/annotations.h"
#include "jvmsupport/classfile/bytecode.h"
#include "jvmsupport/classfile/code_tables.h"
#include "jvmsupport/classfile/frame_simulator.h"
#include "jvmsupport/classfile/offset_map.h"
#include "jvmsupport/classfile/stack_map.h"

namespace jfrbpf::classfile {
namespace {

constexpr uint16_t kFirstStackMapVersion = 50;  // earlier class files are verified by type inference
constexpr uint32_t kMaxCodeLength = 65535;
constexpr uint32_t kPushIntLength = 3;  // sipush, or ldc_w beyond its range
constexpr uint32_t kInvokeLength = 3;
constexpr uint32_t kExitStack = 4;  // index, recording, start (a long)
constexpr uint32_t kGotoWLength = 5;
constexpr uint32_t kWidenedConditionalLength = 3 + kGotoWLength;  // if<!cond> over a goto_w

enum class BranchKind : uint8_t { kNone, kShort, kLong, kSwitch };

// Which catch-all handler covers an instruction. In a constructor (class files with stack maps), code
// that runs while `this` is uninitialized needs a handler whose frame carries uninitializedThis (the
// verifier's flagThisUninit must be a subset of the handler frame's flags, JVMS 4.10.1.4), code after it
// a handler whose frame does not mention `this`, and the super()/this() call itself can be covered by
// neither: HotSpot checks a handler over it both with `this` uninitialized and with it initialized.
enum class Coverage : uint8_t { kInitialized, kThisUninitialized, kNone };

struct Planned {
  Instruction in;
  BranchKind branch = BranchKind::kNone;
  std::vector<uint32_t> targets;  // old bcis
  bool widened = false;
  Coverage coverage = Coverage::kInitialized;
  uint32_t exitCall = 0;  // new position of the exit call in front of a return
  uint32_t start = 0;     // new position of the instruction
};

bool fitsInt16(int64_t value) {
  return value >= std::numeric_limits<int16_t>::min() && value <= std::numeric_limits<int16_t>::max();
}

class MethodRewriter {
 public:
  MethodRewriter(const MethodToRewrite& method, ConstantPool& pool)
      : method_(method), pool_(pool), code_(parseCode(method.codeAttribute)) {}

  RewrittenCode run();

 private:
  void plan();
  void layout();
  void readFrames(const std::vector<VType>& initial);
  void analyze(const std::vector<VType>& initial);
  std::vector<Frame> finalFrames();
  std::vector<ExceptionEntry> exceptionTable() const;
  std::vector<uint8_t> emitCode() const;
  void emitPushInt(Writer& out, int32_t value, uint16_t constant) const;
  void emitStartLocal(Writer& out, uint8_t opcode) const;
  void emitEnter(Writer& out) const;
  void emitExit(Writer& out) const;
  Frame withStartLocal(Frame frame) const;
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> codeAttributes(std::vector<uint8_t> stackMap);
  std::string_view attributeName(const Attribute& attribute) const { return pool_.utf8(attribute.nameIndex); }
  bool usesStackMaps() const { return method_.majorVersion >= kFirstStackMapVersion; }
  bool isConditionalWidened(const Planned& p) const { return p.widened && p.in.opcode != op::kGoto; }

  const MethodToRewrite& method_;
  ConstantPool& pool_;
  CodeAttribute code_;
  std::vector<Planned> planned_;
  bool splitConstructor_ = false;  // a second handler for code that runs before `this` is initialized
  uint32_t handlerStart_ = 0;
  uint32_t uninitializedHandlerStart_ = 0;
  OffsetMap offsets_;
  std::map<uint32_t, Frame> frames_;  // by original offset: the method's own plus inserted ones
  uint16_t indexConstant_ = 0;        // Integer constant for an index beyond sipush's range
  uint16_t recordingConstant_ = 0;    // the same for the recording
  uint32_t startLocalLength_ = 0;     // lstore/lload of the start local: 2 bytes, or 4 with wide
  uint32_t entryLength_ = 0;
  uint32_t exitLength_ = 0;
  uint32_t handlerLength_ = 0;        // the exit call and athrow
  uint32_t widened_ = 0;
  uint32_t insertedFrames_ = 0;
};

void MethodRewriter::plan() {
  std::vector<Instruction> instructions = decodeInstructions(code_.code);
  std::vector<bool> starts(code_.code.size() + 1, false);
  for (const Instruction& in : instructions) starts[in.bci] = true;
  auto checkBoundary = [&](int64_t bci, const char* what) {
    if (bci < 0 || bci >= static_cast<int64_t>(code_.code.size()) || !starts[static_cast<size_t>(bci)]) {
      throw ClassFileError(std::string(what) + " " + std::to_string(bci) + " is not an instruction boundary");
    }
  };
  planned_.reserve(instructions.size());
  for (const Instruction& in : instructions) {
    if (in.opcode == op::kJsr || in.opcode == op::kJsrW || in.opcode == op::kRet) {
      throw ClassFileError("uses jsr/ret subroutines (pre-Java 6 finally blocks); not instrumented");
    }
    Planned planned;
    planned.in = in;
    if (isConditionalBranch(in.opcode) || in.opcode == op::kGoto) {
      planned.branch = BranchKind::kShort;
    } else if (in.opcode == op::kGotoW) {
      planned.branch = BranchKind::kLong;
    } else if (in.opcode == op::kTableswitch || in.opcode == op::kLookupswitch) {
      planned.branch = BranchKind::kSwitch;
    }
    for (int64_t target : branchTargets(code_.code, in)) {
      checkBoundary(target, "branch target");
      planned.targets.push_back(static_cast<uint32_t>(target));
    }
    planned_.push_back(std::move(planned));
  }
  if (!endsBasicBlock(planned_.back().in.opcode)) throw ClassFileError("code can fall off its end");
  for (const ExceptionEntry& entry : code_.exceptionTable) {
    checkBoundary(entry.startPc, "exception range start");
    checkBoundary(entry.handlerPc, "exception handler");
    if (entry.endPc != code_.code.size()) checkBoundary(entry.endPc, "exception range end");
    if (entry.startPc >= entry.endPc) throw ClassFileError("empty exception range");
  }
  if (!fitsInt16(method_.index)) indexConstant_ = pool_.addInteger(method_.index);
  if (!fitsInt16(method_.recording)) recordingConstant_ = pool_.addInteger(method_.recording);
  if (code_.maxLocals > 0xffff - 2) throw ClassFileError("max_locals would exceed 65535");
  startLocalLength_ = code_.maxLocals <= 0xff ? 2 : 4;
  entryLength_ = kPushIntLength + kInvokeLength + startLocalLength_;
  exitLength_ = 2 * kPushIntLength + startLocalLength_ + kInvokeLength;
  handlerLength_ = exitLength_ + 1;
  splitConstructor_ = usesStackMaps() && method_.name == "<init>" && (method_.accessFlags & kAccStatic) == 0 &&
                      method_.className != "java/lang/Object";
}

// Assigns new positions, widening short branches that no longer reach until nothing changes. Widening
// only ever grows an instruction, so this terminates; switch padding may shrink but is recomputed.
void MethodRewriter::layout() {
  const uint32_t oldLength = static_cast<uint32_t>(code_.code.size());
  while (true) {
    uint32_t position = entryLength_;
    std::vector<int32_t> instruction(oldLength + 1, -1);
    std::vector<int32_t> target(oldLength + 1, -1);
    for (Planned& p : planned_) {
      if (isReturn(p.in.opcode)) {
        p.exitCall = position;
        position += exitLength_;
      }
      p.start = position;
      instruction[p.in.bci] = static_cast<int32_t>(position);
      target[p.in.bci] = static_cast<int32_t>(isReturn(p.in.opcode) ? p.exitCall : position);
      switch (p.branch) {
        case BranchKind::kShort:
          position += p.widened ? (p.in.opcode == op::kGoto ? kGotoWLength : kWidenedConditionalLength) : 3;
          break;
        case BranchKind::kSwitch:
          position += p.in.length - switchPadding(p.in.bci) + switchPadding(position);
          break;
        default:
          position += p.in.length;
          break;
      }
      if (position > kMaxCodeLength) throw ClassFileError("code would exceed 65535 bytes after instrumentation");
    }
    handlerStart_ = position;
    uninitializedHandlerStart_ = position + handlerLength_;
    uint32_t codeLength = position + handlerLength_ * (splitConstructor_ ? 2 : 1);
    if (codeLength > kMaxCodeLength) throw ClassFileError("code would exceed 65535 bytes after instrumentation");
    instruction[oldLength] = target[oldLength] = static_cast<int32_t>(handlerStart_);
    offsets_ = OffsetMap(std::move(instruction), std::move(target));

    bool changed = false;
    for (Planned& p : planned_) {
      if (p.branch != BranchKind::kShort || p.widened) continue;
      if (!fitsInt16(static_cast<int64_t>(offsets_.target(p.targets[0])) - p.start)) {
        p.widened = true;
        changed = true;
        ++widened_;
      }
    }
    if (!changed) return;
  }
}

void MethodRewriter::readFrames(const std::vector<VType>& initial) {
  int tables = 0;
  for (const Attribute& attribute : code_.attributes) {
    if (attributeName(attribute) != "StackMapTable") continue;
    if (++tables > 1) throw ClassFileError("more than one StackMapTable");
    for (Frame& frame : decodeStackMapTable(attribute.info, pool_, initial)) {
      if (!offsets_.isInstructionStart(frame.offset)) throw ClassFileError("stack map frame inside an instruction");
      uint32_t offset = frame.offset;
      frames_.emplace(offset, std::move(frame));
    }
  }
}

// Walks the method once, from frame to frame, when something needs the types at an instruction: the
// coverage of a constructor's instructions, and the frame a widened conditional branch's new target needs.
void MethodRewriter::analyze(const std::vector<VType>& initial) {
  bool widenedConditional = std::any_of(planned_.begin(), planned_.end(),
                                        [&](const Planned& p) { return isConditionalWidened(p); });
  if (!splitConstructor_ && !widenedConditional) return;
  FrameSimulator simulator(pool_, code_.code, method_.className, code_.maxLocals);
  simulator.reset(Frame{0, initial, {}});
  bool reachable = true;
  for (Planned& p : planned_) {
    if (auto frame = frames_.find(p.in.bci); frame != frames_.end()) {
      simulator.reset(frame->second);
      reachable = true;
    } else if (!reachable) {
      throw ClassFileError("no stack map frame after an unconditional transfer at " + std::to_string(p.in.bci));
    }
    bool thisUninitialized = simulator.thisUninitialized();
    if (splitConstructor_ && thisUninitialized && !simulator.localIsUninitializedThis(0)) {
      throw ClassFileError("constructor overwrites local 0 before calling super() or this()");
    }
    p.coverage = thisUninitialized ? Coverage::kThisUninitialized : Coverage::kInitialized;
    if (endsBasicBlock(p.in.opcode)) {
      reachable = false;
      continue;
    }
    simulator.step(p.in);
    if (thisUninitialized && !simulator.thisUninitialized()) p.coverage = Coverage::kNone;  // super()/this()
    uint32_t next = p.in.bci + p.in.length;
    if (isConditionalWidened(p) && !frames_.contains(next)) {
      frames_.emplace(next, simulator.frame(next));
      ++insertedFrames_;
    }
  }
}

// The method's frames after rewriting: moved to the new offsets (uninitialized(offset) types follow their
// `new`), plus the catch-all handlers' frames.
std::vector<Frame> MethodRewriter::finalFrames() {
  std::vector<Frame> result;
  result.reserve(frames_.size() + 2);
  for (auto& [oldOffset, frame] : frames_) {
    frame.offset = offsets_.target(oldOffset);
    for (std::vector<VType>* types : {&frame.locals, &frame.stack}) {
      for (VType& type : *types) {
        if (type.kind != VType::kUninitialized) continue;
        if (!offsets_.isInstructionStart(type.offset) || code_.code[type.offset] != op::kNew) {
          throw ClassFileError("uninitialized type does not refer to a new instruction");
        }
        type.offset = offsets_.instruction(type.offset);
      }
    }
    result.push_back(withStartLocal(std::move(frame)));
  }
  const VType throwable = VType::object("java/lang/Throwable");
  result.push_back(withStartLocal(Frame{handlerStart_, {}, {throwable}}));
  ++insertedFrames_;
  if (splitConstructor_) {
    result.push_back(withStartLocal(Frame{uninitializedHandlerStart_, {VType::of(VType::kUninitializedThis)}, {throwable}}));
    ++insertedFrames_;
  }
  return result;
}

// Every frame lies after the entry code, where the start local holds a long: the locals up to it are
// padded with top (what a frame's missing locals are anyway).
Frame MethodRewriter::withStartLocal(Frame frame) const {
  uint32_t slots = 0;
  for (const VType& type : frame.locals) slots += type.kind == VType::kLong || type.kind == VType::kDouble ? 2 : 1;
  if (slots > code_.maxLocals) throw ClassFileError("stack map frame has more locals than max_locals");
  frame.locals.resize(frame.locals.size() + (code_.maxLocals - slots), VType::of(VType::kTop));
  frame.locals.push_back(VType::of(VType::kLong));
  return frame;
}

// The original entries, moved, then the catch-all ranges: each maximal run of instructions with the same
// coverage, from the first instruction after the entry code to the end of the original code.
std::vector<ExceptionEntry> MethodRewriter::exceptionTable() const {
  std::vector<ExceptionEntry> table;
  for (const ExceptionEntry& entry : code_.exceptionTable) {
    table.push_back(ExceptionEntry{static_cast<uint16_t>(offsets_.target(entry.startPc)),
                                   static_cast<uint16_t>(offsets_.target(entry.endPc)),
                                   static_cast<uint16_t>(offsets_.target(entry.handlerPc)), entry.catchType});
  }
  for (size_t first = 0; first < planned_.size();) {
    size_t end = first + 1;
    while (end < planned_.size() && planned_[end].coverage == planned_[first].coverage) ++end;
    Coverage coverage = planned_[first].coverage;
    if (coverage != Coverage::kNone) {
      uint32_t from = offsets_.target(planned_[first].in.bci);
      uint32_t to = end < planned_.size() ? offsets_.target(planned_[end].in.bci) : handlerStart_;
      uint32_t handler = coverage == Coverage::kInitialized ? handlerStart_ : uninitializedHandlerStart_;
      table.push_back(ExceptionEntry{static_cast<uint16_t>(from), static_cast<uint16_t>(to),
                                     static_cast<uint16_t>(handler), 0});
    }
    first = end;
  }
  if (table.size() > 0xffff) throw ClassFileError("exception table is full");
  return table;
}

void MethodRewriter::emitPushInt(Writer& out, int32_t value, uint16_t constant) const {
  if (constant != 0) {
    out.u1(op::kLdcW);
    out.u2(constant);
  } else {
    out.u1(op::kSipush);
    out.u2(static_cast<uint16_t>(static_cast<int16_t>(value)));
  }
}

void MethodRewriter::emitStartLocal(Writer& out, uint8_t opcode) const {
  if (startLocalLength_ == 4) {
    out.u1(op::kWide);
    out.u1(opcode);
    out.u2(code_.maxLocals);
  } else {
    out.u1(opcode);
    out.u1(static_cast<uint8_t>(code_.maxLocals));
  }
}

void MethodRewriter::emitEnter(Writer& out) const {
  emitPushInt(out, method_.index, indexConstant_);
  out.u1(op::kInvokestatic);
  out.u2(method_.enterMethodref);
  emitStartLocal(out, op::kLstore);
}

void MethodRewriter::emitExit(Writer& out) const {
  emitPushInt(out, method_.index, indexConstant_);
  emitPushInt(out, method_.recording, recordingConstant_);
  emitStartLocal(out, op::kLload);
  out.u1(op::kInvokestatic);
  out.u2(method_.exitMethodref);
}

std::vector<uint8_t> MethodRewriter::emitCode() const {
  Writer out;
  emitEnter(out);
  const std::span<const uint8_t> code = code_.code;
  for (const Planned& p : planned_) {
    if (isReturn(p.in.opcode)) emitExit(out);
    if (out.size() != p.start) throw ClassFileError("internal: instruction layout mismatch");
    const int64_t here = p.start;
    auto relative = [&](uint32_t oldTarget, int64_t from) {
      return static_cast<uint32_t>(static_cast<int32_t>(offsets_.target(oldTarget) - from));
    };
    switch (p.branch) {
      case BranchKind::kNone:
        out.append(code.subspan(p.in.bci, p.in.length));
        break;
      case BranchKind::kShort:
        if (!p.widened) {
          out.u1(p.in.opcode);
          out.u2(relative(p.targets[0], here) & 0xffff);
        } else if (p.in.opcode == op::kGoto) {
          out.u1(op::kGotoW);
          out.u4(relative(p.targets[0], here));
        } else {
          out.u1(invertedCondition(p.in.opcode));
          out.u2(kWidenedConditionalLength);
          out.u1(op::kGotoW);
          out.u4(relative(p.targets[0], here + 3));
        }
        break;
      case BranchKind::kLong:
        out.u1(p.in.opcode);
        out.u4(relative(p.targets[0], here));
        break;
      case BranchKind::kSwitch: {
        out.u1(p.in.opcode);
        for (uint32_t i = 0; i < switchPadding(p.start); ++i) out.u1(0);
        const uint32_t base = p.in.bci + 1 + switchPadding(p.in.bci);
        out.u4(relative(p.targets[0], here));
        if (p.in.opcode == op::kTableswitch) {
          out.append(code.subspan(base + 4, 8));  // low, high
          for (size_t t = 1; t < p.targets.size(); ++t) out.u4(relative(p.targets[t], here));
        } else {
          out.append(code.subspan(base + 4, 4));  // npairs
          for (size_t t = 1; t < p.targets.size(); ++t) {
            out.append(code.subspan(base + 8 + 8 * (t - 1), 4));  // match
            out.u4(relative(p.targets[t], here));
          }
        }
        break;
      }
    }
  }
  if (out.size() != handlerStart_) throw ClassFileError("internal: handler layout mismatch");
  for (int handler = 0; handler < (splitConstructor_ ? 2 : 1); ++handler) {
    emitExit(out);
    out.u1(op::kAthrow);
  }
  return out.take();
}

std::vector<std::pair<uint16_t, std::vector<uint8_t>>> MethodRewriter::codeAttributes(std::vector<uint8_t> stackMap) {
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> attributes;
  for (const Attribute& attribute : code_.attributes) {
    std::string_view name = attributeName(attribute);
    if (name == "StackMapTable") {
      continue;  // rebuilt below; a pre-version-50 class's table is ignored by the JVM and dropped
    } else if (name == "LineNumberTable") {
      attributes.emplace_back(attribute.nameIndex, remapLineNumberTable(attribute.info, offsets_));
    } else if (name == "LocalVariableTable" || name == "LocalVariableTypeTable") {
      attributes.emplace_back(attribute.nameIndex, remapLocalVariableTable(attribute.info, offsets_));
    } else if (name == "RuntimeVisibleTypeAnnotations" || name == "RuntimeInvisibleTypeAnnotations") {
      attributes.emplace_back(attribute.nameIndex, remapCodeTypeAnnotations(attribute.info, offsets_));
    } else {
      attributes.emplace_back(attribute.nameIndex, std::vector<uint8_t>(attribute.info.begin(), attribute.info.end()));
    }
  }
  if (usesStackMaps()) attributes.emplace_back(pool_.addUtf8("StackMapTable"), std::move(stackMap));
  return attributes;
}

RewrittenCode MethodRewriter::run() {
  plan();
  layout();
  std::vector<uint8_t> stackMap;
  if (usesStackMaps()) {
    std::vector<VType> initial = initialLocals(method_.className, method_.name, method_.descriptor,
                                               (method_.accessFlags & kAccStatic) != 0);
    readFrames(initial);
    analyze(initial);
    stackMap = encodeStackMapTable(finalFrames(), pool_, initial);
  }
  // The exit call's operands over a return value (within max_stack already), or over a handler's throwable.
  uint32_t maxStack = std::max<uint32_t>(code_.maxStack + kExitStack, 1 + kExitStack);
  if (maxStack > 0xffff) throw ClassFileError("max_stack would exceed 65535");
  std::vector<ExceptionEntry> table = exceptionTable();
  std::vector<uint8_t> code = emitCode();

  Writer out;
  out.u2(maxStack);
  out.u2(static_cast<uint16_t>(code_.maxLocals + 2));
  out.u4(static_cast<uint32_t>(code.size()));
  out.append(code);
  out.u2(static_cast<uint32_t>(table.size()));
  for (const ExceptionEntry& entry : table) {
    out.u2(entry.startPc);
    out.u2(entry.endPc);
    out.u2(entry.handlerPc);
    out.u2(entry.catchType);
  }
  auto attributes = codeAttributes(std::move(stackMap));
  out.u2(static_cast<uint32_t>(attributes.size()));
  for (const auto& [nameIndex, info] : attributes) {
    out.u2(nameIndex);
    out.u4(static_cast<uint32_t>(info.size()));
    out.append(info);
  }
  return RewrittenCode{out.take(), widened_, insertedFrames_};
}

}  // namespace

RewrittenCode rewriteMethod(const MethodToRewrite& method, ConstantPool& pool) {
  return MethodRewriter(method, pool).run();
}

}  // namespace jfrbpf::classfile
