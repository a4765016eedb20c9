// The rewriter on hand-built classes: exact output layout, every table it moves, the shapes it must
// refuse, and hostile input.
#include <gtest/gtest.h>

#include <algorithm>

#include "jvmsupport/classfile/bytecode.h"
#include "jvmsupport/classfile/class_model.h"
#include "jvmsupport/classfile/rewriter.h"
#include "jvmsupport/classfile/stack_map.h"
#include "jvmsupport/filter/filter.h"
#include "tests/classfile/class_builder.h"

namespace jfrbpf::classfile::testing {
namespace {

const HookConfig kHooks{"jfrbpf/test/Hooks", "enter", "exit", 9};

MethodSelector all(int32_t index = 7) {
  return [index](const ClassInfo&, const MethodInfo&) -> std::optional<int32_t> { return index; };
}

// A method with a loop, a `new` whose uninitialized type sits in a frame, a try/catch, a line table and
// a local variable table: `static int f(int n)`.
//   0 iconst_0; 1 istore_1; 2 iload_1; 3 iload_0; 4 if_icmpge 13; 7 iinc 1 1; 10 goto 2; 13 new Object;
//   16 dup; 17 iload_1; 18 ifeq 25; 21 iconst_1; 22 goto 26; 25 iconst_0; 26 pop; 27 invokespecial <init>;
//   30 pop; 31 iload_1; 32 ireturn; 33 astore_1 (handler for [0, 31)); 34 iconst_m1; 35 ireturn
MethodSpec sampleMethod(ClassBuilder& builder) {
  MethodSpec m;
  m.name = "f";
  m.descriptor = "(I)I";
  m.maxStack = 3;
  m.maxLocals = 2;
  uint16_t object = builder.classRef("java/lang/Object");
  uint16_t init = builder.methodRef("java/lang/Object", "<init>", "()V");
  m.code = {0x03, 0x3c, 0x1b, 0x1a, 0xa2, 0x00, 0x09, 0x84, 0x01, 0x01, 0xa7, 0xff, 0xf8,
            0xbb, static_cast<uint8_t>(object >> 8), static_cast<uint8_t>(object), 0x59, 0x1b, 0x99, 0x00, 0x07,
            0x04, 0xa7, 0x00, 0x04, 0x03, 0x57, 0xb7, static_cast<uint8_t>(init >> 8), static_cast<uint8_t>(init),
            0x57, 0x1b, 0xac, 0x4c, 0x02, 0xac};
  m.handlers = {{0, 31, 33, builder.classRef("java/lang/RuntimeException")}};
  // Frames: 2 append[int]; 13 same; 25 full{int,int}{uninit(13),uninit(13)}; 26 full{..}{u13,u13,int};
  //         33 full{int}{RuntimeException}.
  std::vector<uint8_t> smt = {0x00, 0x05, 252, 0x00, 0x02, 0x01, 10};
  std::vector<uint8_t> full25 = {255, 0x00, 0x0b, 0x00, 0x02, 0x01, 0x01, 0x00, 0x02, 0x08, 0x00, 0x0d, 0x08, 0x00, 0x0d};
  std::vector<uint8_t> full26 = {255, 0x00, 0x00, 0x00, 0x02, 0x01, 0x01, 0x00, 0x03, 0x08, 0x00, 0x0d,
                                 0x08, 0x00, 0x0d, 0x01};
  uint16_t runtime = builder.classRef("java/lang/RuntimeException");
  std::vector<uint8_t> full33 = {255, 0x00, 0x06, 0x00, 0x01, 0x01, 0x00, 0x01, 0x07,
                                 static_cast<uint8_t>(runtime >> 8), static_cast<uint8_t>(runtime)};
  ClassBuilder::append(smt, full25);
  ClassBuilder::append(smt, full26);
  ClassBuilder::append(smt, full33);
  m.codeAttributes.emplace_back("StackMapTable", smt);
  m.codeAttributes.emplace_back("LineNumberTable", std::vector<uint8_t>{0, 3, 0, 0, 0, 10, 0, 13, 0, 11, 0, 32, 0, 12});
  uint16_t name = builder.utf8("i");
  uint16_t type = builder.utf8("I");
  m.codeAttributes.emplace_back("LocalVariableTable",
                                std::vector<uint8_t>{0, 1, 0, 2, 0, 34, static_cast<uint8_t>(name >> 8),
                                                     static_cast<uint8_t>(name), static_cast<uint8_t>(type >> 8),
                                                     static_cast<uint8_t>(type), 0, 1});
  return m;
}

struct Rewritten {
  RewriteResult result;
  ClassModel model;
  CodeAttribute code;
};

// Rewrites and parses the output again; the model views result.bytes, so it is returned together.
std::unique_ptr<Rewritten> rewriteAndParse(const std::vector<uint8_t>& bytes, const MethodSelector& select,
                                           size_t methodIndex = 0) {
  auto rewritten = std::make_unique<Rewritten>();
  rewritten->result = rewriteClass(bytes, kHooks, select);
  if (!rewritten->result.modified()) return rewritten;
  rewritten->model = parseClass(rewritten->result.bytes);
  auto codeAttribute = rewritten->model.find(rewritten->model.methods.at(methodIndex).attributes, "Code");
  rewritten->code = parseCode(codeAttribute->info);
  return rewritten;
}

std::vector<uint8_t> attributeOf(const Rewritten& r, std::string_view name) {
  auto attribute = r.model.find(r.code.attributes, name);
  if (!attribute) return {};
  return {attribute->info.begin(), attribute->info.end()};
}

TEST(ClassfileRewriter, InsertsEntryExitAndCatchAllAndMovesEveryTable) {
  ClassBuilder builder("t/Sample");
  builder.addMethod(sampleMethod(builder));
  auto r = rewriteAndParse(builder.build(), all(7));
  ASSERT_TRUE(r->result.modified()) << r->result.error;
  ASSERT_EQ(r->result.instrumented.size(), 1u);
  EXPECT_EQ(r->result.instrumented[0].index, 7);
  EXPECT_EQ(r->result.instrumented[0].className, "t/Sample");
  EXPECT_EQ(r->result.instrumented[0].methodName, "f");
  const ConstantPool& pool = r->model.pool;
  std::span<const uint8_t> code = r->code.code;

  // Entry: sipush 7; invokestatic Hooks.enter(I)J; lstore 2 (the new local after the method's two)
  ASSERT_GE(code.size(), 8u);
  EXPECT_EQ(code[0], op::kSipush);
  EXPECT_EQ(loadU2(code, 1), 7);
  EXPECT_EQ(code[3], op::kInvokestatic);
  ConstantPool::MemberRef enter = pool.memberRef(loadU2(code, 4));
  EXPECT_EQ(enter.owner, "jfrbpf/test/Hooks");
  EXPECT_EQ(enter.name, "enter");
  EXPECT_EQ(enter.descriptor, "(I)J");
  EXPECT_EQ(code[6], op::kLstore);
  EXPECT_EQ(code[7], 2);

  // Every return is preceded by sipush 7; sipush 9 (the recording); lload 2; invokestatic Hooks.exit(IIJ)V;
  // the code ends with the handler: the same call and athrow.
  std::vector<Instruction> instructions = decodeInstructions(code);
  int returns = 0;
  for (size_t i = 0; i < instructions.size(); ++i) {
    if (!isReturn(instructions[i].opcode) && instructions[i].opcode != op::kAthrow) continue;
    returns += instructions[i].opcode != op::kAthrow;
    ASSERT_GE(i, 4u);
    EXPECT_EQ(instructions[i - 4].opcode, op::kSipush);
    EXPECT_EQ(loadU2(code, instructions[i - 4].bci + 1), 7);
    EXPECT_EQ(instructions[i - 3].opcode, op::kSipush);
    EXPECT_EQ(loadU2(code, instructions[i - 3].bci + 1), 9);
    EXPECT_EQ(instructions[i - 2].opcode, op::kLload);
    EXPECT_EQ(code[instructions[i - 2].bci + 1], 2);
    ConstantPool::MemberRef exit = pool.memberRef(loadU2(code, instructions[i - 1].bci + 1));
    EXPECT_EQ(exit.name, "exit");
    EXPECT_EQ(exit.descriptor, "(IIJ)V");
  }
  EXPECT_EQ(returns, 2);
  EXPECT_EQ(instructions.back().opcode, op::kAthrow);
  const uint32_t handler = static_cast<uint32_t>(code.size()) - 12;

  // Original instruction positions: +8 for the entry code, +11 more after each return before them.
  // old 0..32 -> new 8..40 (the first return at old 32 gets its exit call at new 40), old 33 -> 52.
  ASSERT_EQ(r->code.exceptionTable.size(), 2u);
  EXPECT_EQ(r->code.exceptionTable[0].startPc, 8);
  EXPECT_EQ(r->code.exceptionTable[0].endPc, 39);
  EXPECT_EQ(r->code.exceptionTable[0].handlerPc, 52);
  EXPECT_EQ(r->code.exceptionTable[1].startPc, 8);
  EXPECT_EQ(r->code.exceptionTable[1].endPc, handler);
  EXPECT_EQ(r->code.exceptionTable[1].handlerPc, handler);
  EXPECT_EQ(r->code.exceptionTable[1].catchType, 0);
  EXPECT_EQ(r->code.maxStack, 3 + 4) << "the exit call's int, int and long";
  EXPECT_EQ(r->code.maxLocals, 2 + 2) << "the start local";

  // Branches still reach their targets: the loop's goto goes back to old 2 = new 10.
  auto loopBack = std::find_if(instructions.begin(), instructions.end(),
                               [](const Instruction& in) { return in.opcode == op::kGoto; });
  ASSERT_NE(loopBack, instructions.end());
  EXPECT_EQ(loopBack->bci, 18u);
  EXPECT_EQ(branchTargets(code, *loopBack)[0], 10);

  std::vector<VType> initial = initialLocals("t/Sample", "f", "(I)I", true);
  std::vector<Frame> frames = decodeStackMapTable(attributeOf(*r, "StackMapTable"), pool, initial);
  ASSERT_EQ(frames.size(), 6u);
  EXPECT_EQ(frames[0].offset, 10u);
  EXPECT_EQ(frames[1].offset, 21u);
  EXPECT_EQ(frames[2].offset, 33u);
  EXPECT_EQ(frames[2].stack, (std::vector<VType>{VType::uninitialized(21), VType::uninitialized(21)}));
  EXPECT_EQ(frames[3].offset, 34u);
  EXPECT_EQ(frames[4].offset, 52u);
  EXPECT_EQ(frames[4].stack, std::vector<VType>{VType::object("java/lang/RuntimeException")});
  EXPECT_EQ(frames[5].offset, handler);
  const VType kTop = VType::of(VType::kTop), kLong = VType::of(VType::kLong);
  EXPECT_EQ(frames[5].locals, (std::vector<VType>{kTop, kTop, kLong})) << "only the start local is known";
  EXPECT_EQ(frames[5].stack, std::vector<VType>{VType::object("java/lang/Throwable")});
  for (const Frame& frame : frames) {
    ASSERT_EQ(frame.locals.size(), 3u) << frame.offset;
    EXPECT_EQ(frame.locals[2], kLong) << "every frame carries the start local, at " << frame.offset;
  }

  // Lines: bci 0 stays 0 (the entry code belongs to the first line), 13 -> 21, the return at 32 -> 40.
  EXPECT_EQ(attributeOf(*r, "LineNumberTable"), (std::vector<uint8_t>{0, 3, 0, 0, 0, 10, 0, 21, 0, 11, 0, 40, 0, 12}));
  // The local `i` from old 2 to the end of the code -> from new 10 to the end of the original code.
  std::vector<uint8_t> locals = attributeOf(*r, "LocalVariableTable");
  ASSERT_EQ(locals.size(), 12u);
  EXPECT_EQ(loadU2(locals, 2), 10);
  EXPECT_EQ(loadU2(locals, 4), handler - 10);
}

TEST(ClassfileRewriter, AStartLocalBeyond255IsReachedWithWide) {
  ClassBuilder builder("t/ManyLocals");
  MethodSpec m = sampleMethod(builder);
  m.maxLocals = 300;
  builder.addMethod(m);
  auto r = rewriteAndParse(builder.build(), all(7));
  ASSERT_TRUE(r->result.modified()) << (r->result.skipped.empty() ? r->result.error : r->result.skipped[0].reason);
  std::span<const uint8_t> code = r->code.code;
  EXPECT_EQ(code[6], op::kWide);
  EXPECT_EQ(code[7], op::kLstore);
  EXPECT_EQ(loadU2(code, 8), 300);
  EXPECT_EQ(r->code.maxLocals, 302);
  std::vector<Instruction> instructions = decodeInstructions(code);
  ASSERT_GE(instructions.size(), 3u);
  const Instruction& load = instructions[instructions.size() - 3];  // the handler's: ..., wide lload, invokestatic, athrow
  EXPECT_EQ(code[load.bci], op::kWide);
  EXPECT_EQ(code[load.bci + 1], op::kLload);
  EXPECT_EQ(loadU2(code, load.bci + 2), 300);
}

TEST(ClassfileRewriter, NothingSelectedLeavesTheClassAlone) {
  ClassBuilder builder("t/Sample");
  builder.addMethod(sampleMethod(builder));
  RewriteResult result = rewriteClass(builder.build(), kHooks, [](auto&, auto&) { return std::nullopt; });
  EXPECT_FALSE(result.modified());
  EXPECT_EQ(result.error, "");
  EXPECT_TRUE(result.instrumented.empty());
  EXPECT_TRUE(result.skipped.empty());
}

TEST(ClassfileRewriter, UnselectedMethodsAndTheRestOfTheClassAreCopiedUnchanged) {
  ClassBuilder builder("t/Two");
  MethodSpec first = sampleMethod(builder);
  MethodSpec second = sampleMethod(builder);
  second.name = "g";
  builder.addMethod(first);
  builder.addMethod(second);
  builder.addClassAttribute("SourceFile", ClassBuilder::u2(builder.utf8("Two.java")));
  std::vector<uint8_t> bytes = builder.build();
  auto r = rewriteAndParse(bytes, [](const ClassInfo&, const MethodInfo& m) -> std::optional<int32_t> {
    if (m.name == "f") return 1;
    return std::nullopt;
  });
  ASSERT_TRUE(r->result.modified());
  ClassModel original = parseClass(bytes);
  EXPECT_EQ(r->model.methods.size(), 2u);
  auto originalCode = original.find(original.methods[1].attributes, "Code")->info;
  auto copiedCode = r->model.find(r->model.methods[1].attributes, "Code")->info;
  EXPECT_TRUE(std::equal(originalCode.begin(), originalCode.end(), copiedCode.begin(), copiedCode.end()));
  EXPECT_TRUE(std::equal(original.attributesBytes.begin(), original.attributesBytes.end(),
                         r->model.attributesBytes.begin(), r->model.attributesBytes.end()));
  EXPECT_EQ(r->model.pool.utf8(r->model.methods[1].nameIndex), "g");
}

TEST(ClassfileRewriter, IndexBeyondSipushUsesAnIntegerConstant) {
  ClassBuilder builder("t/Sample");
  builder.addMethod(sampleMethod(builder));
  auto r = rewriteAndParse(builder.build(), all(1 << 20));
  ASSERT_TRUE(r->result.modified());
  EXPECT_EQ(r->code.code[0], op::kLdcW);
  EXPECT_EQ(r->model.pool.integer(loadU2(r->code.code, 1)), 1 << 20);
  RewriteResult farRecording = rewriteClass(builder.build(), HookConfig{"jfrbpf/test/Hooks", "enter", "exit", 70000}, all(1));
  ASSERT_TRUE(farRecording.modified());
  ClassModel model = parseClass(farRecording.bytes);
  CodeAttribute code = parseCode(model.find(model.methods.at(0).attributes, "Code")->info);
  const size_t exitAt = code.code.size() - 12;  // the handler: push index, push recording, ...
  EXPECT_EQ(code.code[exitAt + 3], op::kLdcW);
  EXPECT_EQ(model.pool.integer(loadU2(code.code, exitAt + 4)), 70000);
  auto negative = rewriteAndParse(builder.build(), all(-5));
  EXPECT_EQ(negative->code.code[0], op::kSipush);
  EXPECT_EQ(static_cast<int16_t>(loadU2(negative->code.code, 1)), -5);
}

TEST(ClassfileRewriter, ConstructorGetsASeparateHandlerBeforeSuperAndNoneOverIt) {
  ClassBuilder builder("t/Ctor");
  MethodSpec ctor;
  ctor.accessFlags = 0x0001;
  ctor.name = "<init>";
  ctor.descriptor = "()V";
  ctor.maxStack = 1;
  ctor.maxLocals = 1;
  uint16_t init = builder.methodRef("java/lang/Object", "<init>", "()V");
  // aload_0; invokespecial Object.<init>; return
  ctor.code = {0x2a, 0xb7, static_cast<uint8_t>(init >> 8), static_cast<uint8_t>(init), 0xb1};
  builder.addMethod(ctor);
  auto r = rewriteAndParse(builder.build(), all(3));
  ASSERT_TRUE(r->result.modified()) << (r->result.skipped.empty() ? r->result.error : r->result.skipped[0].reason);
  // Code: enter(0..8) aload_0(8) invokespecial(9) exit(12) return(23) handler(24) uninitialized handler(36)
  ASSERT_EQ(r->code.code.size(), 48u);
  ASSERT_EQ(r->code.exceptionTable.size(), 2u);
  EXPECT_EQ(r->code.exceptionTable[0].startPc, 8);  // aload_0 runs with `this` uninitialized
  EXPECT_EQ(r->code.exceptionTable[0].endPc, 9);
  EXPECT_EQ(r->code.exceptionTable[0].handlerPc, 36);
  EXPECT_EQ(r->code.exceptionTable[1].startPc, 12);  // after super(): exit call and return
  EXPECT_EQ(r->code.exceptionTable[1].endPc, 24);
  EXPECT_EQ(r->code.exceptionTable[1].handlerPc, 24);
  std::vector<Frame> frames = decodeStackMapTable(attributeOf(*r, "StackMapTable"), r->model.pool,
                                                  initialLocals("t/Ctor", "<init>", "()V", false));
  ASSERT_EQ(frames.size(), 2u);
  const VType kLong = VType::of(VType::kLong);
  EXPECT_EQ(frames[0].offset, 24u);
  EXPECT_EQ(frames[0].locals, (std::vector<VType>{VType::of(VType::kTop), kLong}));
  EXPECT_EQ(frames[1].offset, 36u);
  EXPECT_EQ(frames[1].locals, (std::vector<VType>{VType::of(VType::kUninitializedThis), kLong}));
}

TEST(ClassfileRewriter, Version49ConstructorIsCoveredByOneHandlerAndGetsNoStackMap) {
  ClassBuilder builder("t/Old", 49);
  MethodSpec ctor;
  ctor.accessFlags = 0x0001;
  ctor.name = "<init>";
  ctor.descriptor = "()V";
  uint16_t init = builder.methodRef("java/lang/Object", "<init>", "()V");
  ctor.code = {0x2a, 0xb7, static_cast<uint8_t>(init >> 8), static_cast<uint8_t>(init), 0xb1};
  builder.addMethod(ctor);
  auto r = rewriteAndParse(builder.build(), all(3));
  ASSERT_TRUE(r->result.modified());
  ASSERT_EQ(r->code.exceptionTable.size(), 1u);
  EXPECT_EQ(r->code.exceptionTable[0].startPc, 8);
  EXPECT_EQ(r->code.exceptionTable[0].endPc, 24);
  EXPECT_FALSE(r->model.find(r->code.attributes, "StackMapTable"));
}

TEST(ClassfileRewriter, SkipsJsrRetAndCodelessMethodsWithReasons) {
  ClassBuilder builder("t/Old", 49);
  MethodSpec subroutine;
  subroutine.name = "withJsr";
  subroutine.descriptor = "()V";
  // jsr 4; return; astore_1; ret 1
  subroutine.code = {0xa8, 0x00, 0x04, 0xb1, 0x4c, 0xa9, 0x01};
  builder.addMethod(subroutine);
  MethodSpec abstractMethod;
  abstractMethod.accessFlags = 0x0401;
  abstractMethod.name = "nothing";
  abstractMethod.descriptor = "()V";
  abstractMethod.hasCode = false;
  builder.addMethod(abstractMethod);
  RewriteResult result = rewriteClass(builder.build(), kHooks, all());
  EXPECT_FALSE(result.modified());
  ASSERT_EQ(result.skipped.size(), 2u);
  EXPECT_EQ(result.skipped[0].methodName, "withJsr");
  EXPECT_NE(result.skipped[0].reason.find("jsr/ret"), std::string::npos) << result.skipped[0].reason;
  EXPECT_EQ(result.skipped[1].methodName, "nothing");
  EXPECT_NE(result.skipped[1].reason.find("abstract or native"), std::string::npos);
}

TEST(ClassfileRewriter, MethodTooLargeAfterInstrumentationIsSkipped) {
  ClassBuilder builder("t/Huge");
  MethodSpec huge;
  huge.name = "huge";
  huge.descriptor = "()V";
  huge.code.assign(65530, op::kNop);
  huge.code.push_back(op::kReturn);
  builder.addMethod(huge);
  RewriteResult result = rewriteClass(builder.build(), kHooks, all());
  EXPECT_FALSE(result.modified());
  ASSERT_EQ(result.skipped.size(), 1u);
  EXPECT_NE(result.skipped[0].reason.find("65535"), std::string::npos) << result.skipped[0].reason;
}

// `static int w(int)`: iload_0; ifeq L; then `count` blocks of (nop*pad; iconst_0; ireturn); L: iconst_1;
// ireturn. The ifeq spans just under 32 KB; the exit calls before the returns push it out of reach.
std::vector<uint8_t> widenedBranchClass(int count, int pad) {
  ClassBuilder builder("t/Wide");
  MethodSpec m;
  m.name = "w";
  m.descriptor = "(I)I";
  m.maxLocals = 1;
  uint32_t block = static_cast<uint32_t>(pad) + 2;
  uint32_t target = 1 + 3 + block * static_cast<uint32_t>(count) - 1;  // relative to the ifeq at 1
  m.code = {0x1a, op::kIfeq, static_cast<uint8_t>(target >> 8), static_cast<uint8_t>(target)};
  std::vector<uint8_t> smt = ClassBuilder::u2(static_cast<uint16_t>(count));  // blocks 1..count-1 and L
  uint32_t previous = 0;
  bool first = true;
  for (int i = 0; i <= count; ++i) {
    uint32_t offset = 4 + block * static_cast<uint32_t>(i);  // each block's start, and L, follow a return
    if (i < count) {
      m.code.insert(m.code.end(), static_cast<size_t>(pad), op::kNop);
      m.code.push_back(0x03);
      m.code.push_back(op::kIreturn);
    }
    if (i == 0) continue;  // the first block is reached by falling through the ifeq
    uint32_t delta = first ? offset : offset - previous - 1;
    first = false;
    previous = offset;
    smt.push_back(251);  // same_frame_extended
    ClassBuilder::append(smt, ClassBuilder::u2(static_cast<uint16_t>(delta)));
  }
  m.code.push_back(0x04);
  m.code.push_back(op::kIreturn);
  m.codeAttributes.emplace_back("StackMapTable", smt);
  builder.addMethod(m);
  return builder.build();
}

TEST(ClassfileRewriter, FarConditionalBranchIsInvertedOverAGotoWWithANewFrame) {
  auto r = rewriteAndParse(widenedBranchClass(1000, 30), all(1));
  ASSERT_TRUE(r->result.modified()) << (r->result.skipped.empty() ? r->result.error : r->result.skipped[0].reason);
  EXPECT_EQ(r->result.stats.widenedBranches, 1u);
  std::span<const uint8_t> code = r->code.code;
  // enter(0..8) iload_0(8) ifne +8 (9) goto_w L (12) first block (17)
  EXPECT_EQ(code[8], 0x1a);
  EXPECT_EQ(code[9], invertedCondition(op::kIfeq));
  EXPECT_EQ(loadU2(code, 10), 8);
  EXPECT_EQ(code[12], op::kGotoW);
  int64_t target = 12 + loadS4(code, 13);
  EXPECT_EQ(code[static_cast<size_t>(target)], 0x04) << "goto_w lands on L: iconst_1";
  std::vector<Frame> frames = decodeStackMapTable(attributeOf(*r, "StackMapTable"), r->model.pool,
                                                  initialLocals("t/Wide", "w", "(I)I", true));
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames[0].offset, 17u) << "the fall-through of the inverted branch is now a branch target";
  EXPECT_EQ(frames[0].locals, (std::vector<VType>{VType::of(VType::kInteger), VType::of(VType::kLong)}));
  EXPECT_TRUE(frames[0].stack.empty());
  EXPECT_EQ(frames.size(), 1000u + 2u);  // new target, 999 block starts, L, the handler
}

TEST(ClassfileRewriter, RefusesWhatItMustNotTouch) {
  ClassBuilder hooks("jfrbpf/test/Hooks");
  hooks.addMethod(sampleMethod(hooks));
  EXPECT_NE(rewriteClass(hooks.build(), kHooks, all()).error.find("hook class"), std::string::npos);

  ClassBuilder future("t/Future", 70);
  future.addMethod(sampleMethod(future));
  EXPECT_EQ(rewriteClass(future.build(), kHooks, all()).error, "unsupported class file version 70");

  ClassBuilder fine("t/Fine");
  fine.addMethod(sampleMethod(fine));
  EXPECT_EQ(rewriteClass(fine.build(), HookConfig{"bad.Name"}, all()).error, "invalid hook class or method name");
  EXPECT_EQ(rewriteClass(fine.build(), HookConfig{"ok/Name", "en;ter"}, all()).error,
            "invalid hook class or method name");
}

TEST(ClassfileRewriter, EveryTruncationAndByteFlipIsRejectedOrRewrittenSafely) {
  ClassBuilder builder("t/Sample");
  builder.addMethod(sampleMethod(builder));
  std::vector<uint8_t> bytes = builder.build();
  for (size_t length = 0; length < bytes.size(); ++length) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length));
    RewriteResult result = rewriteClass(prefix, kHooks, all());
    EXPECT_FALSE(result.modified()) << length;
    EXPECT_FALSE(result.error.empty()) << length;
  }
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::vector<uint8_t> flipped = bytes;
    flipped[at] ^= 0xff;
    RewriteResult result = rewriteClass(flipped, kHooks, all());
    if (result.modified()) {
      EXPECT_NO_THROW(parseClass(result.bytes)) << at;
    }
  }
}

TEST(ClassfileRewriter, ReadsClassInfoWithVisibleAnnotations) {
  ClassBuilder builder("t/Annotated");
  std::vector<uint8_t> annotations = {0, 1};
  ClassBuilder::append(annotations, ClassBuilder::u2(builder.utf8("Lcom/foo/Timed;")));
  ClassBuilder::append(annotations, {0, 1});  // one element: value = "x"
  ClassBuilder::append(annotations, ClassBuilder::u2(builder.utf8("value")));
  annotations.push_back('s');
  ClassBuilder::append(annotations, ClassBuilder::u2(builder.utf8("x")));
  MethodSpec m = sampleMethod(builder);
  m.methodAttributes.emplace_back("RuntimeVisibleAnnotations", annotations);
  std::vector<uint8_t> invisible = {0, 1};
  ClassBuilder::append(invisible, ClassBuilder::u2(builder.utf8("Lcom/foo/Hidden;")));
  ClassBuilder::append(invisible, {0, 0});
  m.methodAttributes.emplace_back("RuntimeInvisibleAnnotations", invisible);
  builder.addMethod(m);
  std::vector<uint8_t> classAnnotation = {0, 1};
  ClassBuilder::append(classAnnotation, ClassBuilder::u2(builder.utf8("Lcom/foo/Service;")));
  ClassBuilder::append(classAnnotation, {0, 0});
  builder.addClassAttribute("RuntimeVisibleAnnotations", classAnnotation);
  ClassInfoResult result = readClassInfo(builder.build());
  ASSERT_TRUE(result.info) << result.error;
  EXPECT_EQ(result.info->name, "t/Annotated");
  EXPECT_EQ(result.info->majorVersion, 52);
  EXPECT_EQ(result.info->annotations, std::vector<std::string>{"Lcom/foo/Service;"});
  ASSERT_EQ(result.info->methods.size(), 1u);
  EXPECT_EQ(result.info->methods[0].name, "f");
  EXPECT_EQ(result.info->methods[0].descriptor, "(I)I");
  EXPECT_EQ(result.info->methods[0].accessFlags, 0x0009);
  EXPECT_EQ(result.info->methods[0].annotations, std::vector<std::string>{"Lcom/foo/Timed;"});
  EXPECT_FALSE(readClassInfo(std::vector<uint8_t>{0xca, 0xfe}).info);
}

// How the agent combines the two libraries: the JEP 520 filter decides, the rewriter numbers and rewrites.
TEST(ClassfileRewriter, FilterDecidesWhichMethodsAreRewritten) {
  ClassBuilder builder("com/foo/Bar");
  std::vector<uint8_t> timed = {0, 1};
  ClassBuilder::append(timed, ClassBuilder::u2(builder.utf8("Lcom/foo/Timed;")));
  ClassBuilder::append(timed, {0, 0});
  MethodSpec annotated = sampleMethod(builder);
  annotated.methodAttributes.emplace_back("RuntimeVisibleAnnotations", timed);
  builder.addMethod(annotated);
  for (const char* name : {"g", "h", "lambda$g$0"}) {
    MethodSpec m = sampleMethod(builder);
    m.name = name;
    if (m.name.starts_with("lambda$")) m.accessFlags = 0x100a;  // private static synthetic
    builder.addMethod(m);
  }
  filter::FilterParseResult parsed = filter::parseFilter("@com.foo.Timed; com.foo.Bar::g; ::lambda$g$0");
  ASSERT_FALSE(parsed.error);
  int32_t next = 100;
  auto select = [&](const ClassInfo& info, const MethodInfo& method) -> std::optional<int32_t> {
    filter::MethodCandidate candidate{info.name, method.name, method.accessFlags, info.annotations,
                                      method.annotations};
    if (!parsed.filter.matches(candidate)) return std::nullopt;
    return next++;
  };
  RewriteResult result = rewriteClass(builder.build(), kHooks, select);
  ASSERT_TRUE(result.modified());
  ASSERT_EQ(result.instrumented.size(), 2u);  // the synthetic lambda body never matches, as in the JDK
  EXPECT_EQ(result.instrumented[0].methodName, "f");
  EXPECT_EQ(result.instrumented[0].index, 100);
  EXPECT_EQ(result.instrumented[1].methodName, "g");
  EXPECT_EQ(result.instrumented[1].index, 101);
}

TEST(ClassfileStackMap, EncodingPicksCompactFormsAndRoundTrips) {
  static const std::vector<uint8_t> kEmptyPool = {0, 1};
  Reader reader(kEmptyPool);
  ConstantPool pool(reader);
  std::vector<VType> initial = {VType::of(VType::kInteger)};
  const VType kInt = VType::of(VType::kInteger);
  std::vector<Frame> frames = {
      {0, initial, {}},
      {70, initial, {}},
      {71, initial, {VType::object("java/lang/String")}},
      {200, initial, {VType::of(VType::kLong)}},
      {201, {kInt, VType::of(VType::kLong), VType::of(VType::kFloat)}, {}},
      {202, {kInt}, {}},
      {203, {VType::of(VType::kTop)}, {VType::of(VType::kNull), VType::uninitialized(40)}},
  };
  std::vector<uint8_t> encoded = encodeStackMapTable(frames, pool, initial);
  const std::vector<uint8_t> expected = {
      0x00, 0x07,                    // seven frames
      0x00,                          // same_frame at 0
      0xfb, 0x00, 0x45,              // same_frame_extended, delta 69
      0x40, 0x07, 0x00, 0x02,        // same_locals_1_stack_item, delta 0, String (added as class #2)
      0xf7, 0x00, 0x80, 0x04,        // same_locals_1_stack_item_extended, delta 128, long
      0xfd, 0x00, 0x00, 0x04, 0x02,  // append_frame of two: long, float
      0xf9, 0x00, 0x00,              // chop_frame of two
      0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x05, 0x08, 0x00, 0x28,  // full_frame
  };
  EXPECT_EQ(encoded, expected);
  EXPECT_EQ(pool.className(2), "java/lang/String");
  EXPECT_EQ(decodeStackMapTable(encoded, pool, initial), frames);
}

}  // namespace
}  // namespace jfrbpf::classfile::testing
