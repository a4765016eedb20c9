// The Java model from records: code history, inline chains, methods by id and Method* over time, stubs,
// threads, VMStructs, and refusal of out-of-order or malformed input.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>

#include "test_config.h"

#include "jvmsupport/protocol/virtual_thread_records.h"
#include "tests/jvm/stream_builder.h"
#include "userspace/jvm/java_model.h"
#include "userspace/jvm/metadata_wait.h"
#include "userspace/jvm/record_stream_parser.h"

namespace jfrbpf::jvm::test {
namespace {

using protocol::RecordType;

constexpr uint64_t kLeaf = 0x1000, kMiddle = 0x2000, kRoot = 0x3000;

// Feeds a stream into a model; false with the model's or parser's error if anything was refused.
testing::AssertionResult load(JavaModel& model, const std::vector<uint8_t>& stream) {
  RecordStreamParser parser;
  RecordStreamParser::Sink sink = [&](RecordType t, std::span<const uint8_t> p) { return model.apply(t, p); };
  if (parser.feed(stream, sink)) return testing::AssertionSuccess();
  return testing::AssertionFailure() << (model.error().empty() ? parser.error() : model.error());
}

protocol::MethodInfo method(uint64_t id, uint64_t ptr, std::string_view name, uint64_t time = 0, uint32_t flags = 0) {
  protocol::MethodInfo m;
  m.time = time;
  m.methodId = id;
  m.classId = 1;
  m.methodPtr = ptr;
  m.codeStart = ptr + 0x40;
  m.codeSize = 32;
  m.flags = flags;
  m.name = name;
  m.signature = "(I)I";
  return m;
}

protocol::CompiledMethodLoad compiled(uint64_t start, uint32_t size, uint64_t root, uint64_t time, int compileId,
                                      uint32_t flags = 0) {
  protocol::CompiledMethodLoad c;
  c.time = time;
  c.methodId = root;
  c.codeStart = start;
  c.codeSize = size;
  c.flags = flags;
  c.blob.compileId = compileId;
  return c;
}

// Class 1 "com/example/Work" with leaf (lines 10@0, 11@4), middle (20@0, 21@3), root (30@0, 31@5).
StreamBuilder baseStream() {
  StreamBuilder b;
  b.preamble().hello();
  b.record(RecordType::kClass, protocol::ClassInfo{1, 0, 1, protocol::kReplayed, "com/example/Work"});
  b.method(method(kLeaf, 0x800010000, "leaf", 0, protocol::kReplayed), {{4, 11}, {0, 10}});
  b.method(method(kMiddle, 0x800020000, "middle", 0, protocol::kReplayed), {{0, 20}, {3, 21}});
  b.method(method(kRoot, 0x800030000, "root", 0, protocol::kReplayed), {{0, 30}, {5, 31}});
  return b;
}

TEST(JvmJavaModel, InlineChainsResolveInnermostFirstWithLines) {
  StreamBuilder b = baseStream();
  b.compiled(compiled(0x7000, 0x100, kRoot, 100, 1), {kRoot, kMiddle, kLeaf},
             {{0x10, {{0, 2}}}, {0x20, {{2, 5}, {1, 3}, {0, 6}}}, {0x30, {{1, 0}, {0, 1}}}});
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));

  JavaFrame frames[8];
  // Between two records the next one applies (HotSpot's rule for an interrupted pc).
  ASSERT_EQ(model.compiledFrames(0x7015, 200, frames), 3u);
  EXPECT_EQ(frames[0].method->name, "leaf");
  EXPECT_EQ(frames[0].bci, 5);
  EXPECT_EQ(frames[0].line, 11);
  EXPECT_EQ(frames[0].type, jfr::FrameType::Inlined);
  EXPECT_EQ(frames[1].method->name, "middle");
  EXPECT_EQ(frames[1].line, 21);
  EXPECT_EQ(frames[1].type, jfr::FrameType::Inlined);
  EXPECT_EQ(frames[2].method->name, "root");
  EXPECT_EQ(frames[2].line, 31);
  EXPECT_EQ(frames[2].type, jfr::FrameType::JitCompiled);
  EXPECT_EQ(frames[2].method->klass->name, "com/example/Work");

  // A return address matches its record exactly.
  ASSERT_EQ(model.compiledFrames(0x7030, 200, frames), 2u);
  EXPECT_EQ(frames[0].method->name, "middle");
  EXPECT_EQ(frames[0].line, 20);

  // Past the last record: the compiled method itself, entry line.
  ASSERT_EQ(model.compiledFrames(0x70f0, 200, frames), 1u);
  EXPECT_EQ(frames[0].method->name, "root");
  EXPECT_EQ(frames[0].bci, -1);
  EXPECT_EQ(frames[0].line, 30);

  // A short output span takes the innermost frames.
  ASSERT_EQ(model.compiledFrames(0x7020, 200, std::span<JavaFrame>(frames, 1)), 1u);
  EXPECT_EQ(frames[0].method->name, "leaf");

  EXPECT_EQ(model.compiledFrames(0x7100, 200, frames), 0u) << "end is exclusive";
  EXPECT_EQ(model.classify(0x7050, 200).kind, CodeKind::kCompiled);
}

TEST(JvmJavaModel, CodeHistoryAnswersForTheSampleTime) {
  StreamBuilder b = baseStream();
  b.compiled(compiled(0x7000, 0x100, kLeaf, 100, 1), {kLeaf}, {});
  b.record(RecordType::kCompiledMethodUnload, protocol::CompiledMethodUnload{200, kLeaf, 0x7000});
  b.compiled(compiled(0x7000, 0x100, kMiddle, 300, 2), {kMiddle}, {});
  // Overlaps the previous blob without an unload: the old one is retired as of 400.
  b.compiled(compiled(0x70f0, 0x100, kRoot, 400, 3), {kRoot}, {});
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));

  auto rootAt = [&](uint64_t pc, uint64_t t) -> uint64_t {
    const CompiledBlob* blob = model.code().compiledAt(pc, t);
    return blob == nullptr ? 0 : blob->methodId;
  };
  EXPECT_EQ(rootAt(0x7050, 150), kLeaf);
  EXPECT_EQ(rootAt(0x7050, 350), kMiddle);
  EXPECT_EQ(rootAt(0x7050, 450), 0u) << "nothing lives there after the overlap";
  EXPECT_EQ(rootAt(0x7100, 450), kRoot);
  EXPECT_EQ(rootAt(0x70f8, 350), kMiddle);
  // A live blob whose load record came after the sample is still the answer when nothing else was there.
  EXPECT_EQ(rootAt(0x71e0, 50), kRoot);
  EXPECT_EQ(model.code().liveCompiledCount(), 1u);
  EXPECT_EQ(model.code().retiredCompiledCount(), 2u);
  uint64_t generation = model.code().generation();
  StreamBuilder unload;
  unload.record(RecordType::kCompiledMethodUnload, protocol::CompiledMethodUnload{500, kRoot, 0x70f0});
  ASSERT_TRUE(model.apply(RecordType::kCompiledMethodUnload, unload.lastPayload()));
  EXPECT_NE(model.code().generation(), generation);
  EXPECT_EQ(rootAt(0x7100, 450), kRoot);
  EXPECT_EQ(rootAt(0x7100, 550), 0u);

  model.forgetBefore(250);
  EXPECT_EQ(model.code().retiredCompiledCount(), 2u) << "only the blob unloaded at 200 is forgotten";
  EXPECT_EQ(rootAt(0x7050, 350), kMiddle);
}

TEST(JvmJavaModel, ReplayedDuplicatesAreIgnored) {
  StreamBuilder b = baseStream();
  b.compiled(compiled(0x7000, 0x100, kRoot, 100, 5), {kRoot}, {{0x10, {{0, 1}}}});
  b.compiled(compiled(0x7000, 0x100, kRoot, 900, 5, protocol::kCompiledReplayed), {kRoot}, {{0x10, {{0, 1}}}});
  b.method(method(kLeaf, 0x800010000, "leaf", 950, protocol::kReplayed), {{0, 10}});
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));
  EXPECT_EQ(model.code().liveCompiledCount(), 1u);
  EXPECT_EQ(model.code().retiredCompiledCount(), 0u);
  EXPECT_EQ(model.code().compiledAt(0x7000, 150)->loadTicks, 100u);
  EXPECT_EQ(model.methods().methodCount(), 3u);
}

TEST(JvmJavaModel, MethodPointersAreVersionedByTime) {
  StreamBuilder b = baseStream();
  // After class unloading, another method gets leaf's Method* (and a new jmethodID).
  b.record(RecordType::kClass, protocol::ClassInfo{2, 500, 1, 0, "com/example/Other"});
  protocol::MethodInfo reused = method(0x9000, 0x800010000, "other", 500);
  reused.classId = 2;
  b.method(reused, {{0, 70}});
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));

  EXPECT_EQ(model.methods().byPointer(0x800010000, 100)->name, "leaf");
  EXPECT_EQ(model.methods().byPointer(0x800010000, 600)->name, "other");
  EXPECT_EQ(model.methods().byPointer(0x800010000, 600)->klass->name, "com/example/Other");
  EXPECT_EQ(model.methods().byId(kLeaf, 600)->name, "leaf");
  EXPECT_EQ(model.methods().byPointer(0x12345, 600), nullptr);
}

// A JVM that defines classes without end: what it unloaded goes once no sample can name it any more, and
// the Method* it freed keeps resolving to whatever was there at each time.
TEST(JvmJavaModel, UnloadedClassesGoWithTheirMethodsOnceOlderThanTheHorizon) {
  StreamBuilder b = baseStream();
  b.record(RecordType::kClass, protocol::ClassInfo{2, 100, 1, protocol::kHidden, "com/example/Gen/0x1"});
  protocol::MethodInfo gen = method(0x9000, 0x800040000, "spin", 100);
  gen.classId = 2;
  b.method(gen, {{0, 5}});
  // The next generation reuses the first one's Method* (metaspace reuse) once it is unloaded.
  b.record(RecordType::kClassUnload, protocol::ClassUnload{2, 300});
  b.record(RecordType::kClass, protocol::ClassInfo{3, 400, 1, protocol::kHidden, "com/example/Gen/0x2"});
  protocol::MethodInfo next = method(0x9100, 0x800040000, "spin", 400);
  next.classId = 3;
  b.method(next, {{0, 6}});
  b.record(RecordType::kClassUnload, protocol::ClassUnload{99, 450});  // never reported: ignored
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));
  ASSERT_EQ(model.methods().methodCount(), 5u);
  const size_t bytesBefore = model.methods().approximateBytes();
  const uint64_t generationBefore = model.forgetGeneration();

  model.forgetBefore(300);  // unloaded at 300: a sample at 299 may still come
  EXPECT_EQ(model.methods().methodCount(), 5u);
  EXPECT_EQ(model.forgetGeneration(), generationBefore);
  EXPECT_EQ(model.methods().byPointer(0x800040000, 200)->klass->name, "com/example/Gen/0x1");

  model.forgetBefore(301);
  EXPECT_EQ(model.methods().methodCount(), 4u);
  EXPECT_EQ(model.methods().classCount(), 2u);
  EXPECT_NE(model.forgetGeneration(), generationBefore) << "pointers kept by callers may be stale";
  EXPECT_LT(model.methods().approximateBytes(), bytesBefore);
  EXPECT_EQ(model.methods().byId(0x9000, 200), nullptr);
  EXPECT_EQ(model.methods().byPointer(0x800040000, 500)->klass->name, "com/example/Gen/0x2");
  EXPECT_EQ(model.methods().byPointer(0x800040000, 200)->klass->name, "com/example/Gen/0x2")
      << "the oldest version left answers for earlier times";
  EXPECT_EQ(model.methods().byId(kLeaf, 600)->name, "leaf") << "classes never unloaded stay";

  // The freed place takes the next method; both keys of the new method find it.
  StreamBuilder more;
  more.preamble();
  more.record(RecordType::kClass, protocol::ClassInfo{4, 700, 1, protocol::kHidden, "com/example/Gen/0x3"});
  protocol::MethodInfo third = method(0x9200, 0x800050000, "spin", 700);
  third.classId = 4;
  more.method(third, {{0, 7}});
  ASSERT_TRUE(load(model, more.bytes()));
  EXPECT_EQ(model.methods().methodCount(), 5u);
  EXPECT_EQ(model.methods().byId(0x9200, 800)->klass->name, "com/example/Gen/0x3");
  EXPECT_EQ(model.methods().byPointer(0x800050000, 800)->lineForBci(0), 7);
  size_t visited = 0;
  model.methods().forEachMethod([&](const JavaMethod& m) {
    ++visited;
    EXPECT_NE(m.methodId, 0x9000u) << "a dropped method is not visited";
  });
  EXPECT_EQ(visited, 5u);
}

TEST(JvmJavaModel, InterpretedFramesTurnBcpIntoBciAndLine) {
  JavaModel model;
  ASSERT_TRUE(load(model, baseStream().bytes()));
  // leaf: Method* 0x800010000, bytecode at 0x800010040, 32 bytes, lines 10@0, 11@4.
  std::optional<JavaFrame> f = model.interpretedFrame(0x800010000, 0x800010040, 1);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->bci, 0);
  EXPECT_EQ(f->line, 10);
  EXPECT_EQ(f->type, jfr::FrameType::Interpreted);
  f = model.interpretedFrame(0x800010000, 0x800010046, 1);
  EXPECT_EQ(f->bci, 6);
  EXPECT_EQ(f->line, 11);
  f = model.interpretedFrame(0x800010000, 0x800010060, 1);
  EXPECT_EQ(f->bci, -1) << "bcp past the bytecode";
  EXPECT_EQ(f->line, -1);
  EXPECT_FALSE(model.interpretedFrame(0x999, 0x800010040, 1).has_value());
}

TEST(JvmJavaModel, StubsAreClassifiedAndNestedRangesResolveInnermost) {
  StreamBuilder b = baseStream();
  b.record(RecordType::kDynamicCode, protocol::DynamicCode{1, 0x10000, 0x8000, protocol::kReplayed, {}, "Interpreter"});
  b.record(RecordType::kDynamicCode, protocol::DynamicCode{1, 0x20000, 0x1000, 0, {}, "StubRoutines (1)"});
  b.record(RecordType::kDynamicCode, protocol::DynamicCode{1, 0x20100, 0x40, 0, {}, "StubRoutines::call_stub"});
  b.record(RecordType::kDynamicCode, protocol::DynamicCode{1, 0x30000, 0x200, 0, {}, "I2C/C2I adapters"});
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));
  EXPECT_EQ(model.classify(0x10010, 5).kind, CodeKind::kInterpreter);
  ASSERT_NE(model.code().interpreter(), nullptr);
  EXPECT_EQ(model.code().interpreter()->start, 0x10000u);
  EXPECT_EQ(model.classify(0x20110, 5).stub->name, "StubRoutines::call_stub");
  EXPECT_EQ(model.classify(0x20500, 5).stub->name, "StubRoutines (1)");
  EXPECT_EQ(model.classify(0x30010, 5).kind, CodeKind::kAdapter);
  EXPECT_EQ(model.classify(0x40000, 5).kind, CodeKind::kUnknown);

  // An nmethod where a stub was: the stub is gone, the nmethod wins.
  StreamBuilder more;
  more.compiled(compiled(0x30000, 0x100, kRoot, 10, 9), {kRoot}, {});
  ASSERT_TRUE(model.apply(RecordType::kCompiledMethodLoad, more.lastPayload()));
  EXPECT_EQ(model.classify(0x30010, 50).kind, CodeKind::kCompiled);
  EXPECT_EQ(model.classify(0x30150, 50).kind, CodeKind::kUnknown);
}

// The code map answers pcs outside every range it was ever given without a search; its bounds only grow, so a
// blob retired at the edge of them is still found for a sample of its time.
TEST(JvmCodeMap, PcsOutsideEveryRangeAreUnknownAndEdgesAreStillFound) {
  CodeMap code;
  EXPECT_EQ(code.compiledAt(0x7000, 1), nullptr) << "an empty map";
  EXPECT_EQ(code.stubAt(0x7000), nullptr);
  auto blob = std::make_unique<CompiledBlob>();
  blob->start = 0x7000;
  blob->end = 0x7100;
  blob->methodId = kRoot;
  blob->loadTicks = 100;
  code.addCompiled(std::move(blob));
  code.addStub(StubBlob{0x6000, 0x6040, CodeKind::kStub, "StubRoutines::call_stub", 0, {}});
  EXPECT_EQ(code.stubAt(0x6000)->name, "StubRoutines::call_stub");
  EXPECT_EQ(code.stubAt(0x603f)->name, "StubRoutines::call_stub");
  EXPECT_EQ(code.stubAt(0x5fff), nullptr);
  EXPECT_EQ(code.compiledAt(0x70ff, 150)->methodId, kRoot);
  EXPECT_EQ(code.compiledAt(0x7100, 150), nullptr);
  EXPECT_EQ(code.compiledAt(0x7f12345678, 150), nullptr) << "native code far above the code cache";
  EXPECT_EQ(code.stubAt(0x1000), nullptr) << "and below it";
  code.unloadCompiled(0x7000, kRoot, 200);
  EXPECT_EQ(code.compiledAt(0x7000, 150)->methodId, kRoot) << "retired, still there for its time";
  EXPECT_EQ(code.compiledAt(0x7000, 250), nullptr);
}

TEST(JvmJavaModel, ThreadsByTidOverTimeAndRenames) {
  StreamBuilder b = baseStream();
  b.record(RecordType::kThreadStart, protocol::ThreadStart{0, 501, protocol::kThreadReplayed, 1, "main"});
  b.record(RecordType::kThreadStart, protocol::ThreadStart{100, 502, protocol::kThreadDaemon, 12, "worker-1"});
  b.record(RecordType::kThreadEnd, protocol::ThreadEnd{200, 502, 12});
  b.record(RecordType::kThreadStart, protocol::ThreadStart{300, 502, 0, 13, "worker-2"});
  b.record(RecordType::kThreadRename, protocol::ThreadRename{400, 502, 13, "renamed"});
  b.record(RecordType::kThreadRename, protocol::ThreadRename{400, 503, 14, "first seen by rename"});
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));
  EXPECT_EQ(model.threads().byTid(501, 50)->name, "main");
  EXPECT_EQ(model.threads().byTid(502, 150)->name, "worker-1");
  EXPECT_TRUE(model.threads().byTid(502, 150)->daemon);
  EXPECT_EQ(model.threads().byTid(502, 350)->name, "renamed");
  EXPECT_EQ(model.threads().byTid(502, 350)->javaThreadId, 13);
  EXPECT_EQ(model.threads().byTid(503, 450)->javaThreadId, 14);
  EXPECT_EQ(model.threads().byTid(999, 450), nullptr);
  model.forgetBefore(250);
  EXPECT_EQ(model.threads().byJavaId(12), nullptr);
  EXPECT_EQ(model.threads().byTid(502, 150)->javaThreadId, 13) << "only the later thread is left";
}

TEST(JvmJavaModel, ClockOffsetMovesAgentTimesToOurs) {
  StreamBuilder b = baseStream();
  b.compiled(compiled(0x7000, 0x100, kRoot, 1'000'000'500, 1), {kRoot}, {});
  JavaModel model(1'000'000'000);
  ASSERT_TRUE(load(model, b.bytes()));
  EXPECT_EQ(model.code().compiledAt(0x7000, 600)->loadTicks, 500u);
  EXPECT_EQ(model.toOurTicks(1'000'000'700), 700u);
}

TEST(JvmJavaModel, VmStructsLookups) {
  StreamBuilder b = baseStream();
  b.record(RecordType::kVmStructField, protocol::VmStructField{"Method", "_constMethod", "ConstMethod*", 0, 8, 0});
  b.record(RecordType::kVmStructField, protocol::VmStructField{"CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", 1, 0, 0x7f00});
  b.record(RecordType::kVmType, protocol::VmType{"ConstMethod", "MetaspaceObj", 0, 48});
  b.record(RecordType::kVmConstant, protocol::VmConstant{"frame::interpreter_frame_method_offset", 0, -3});
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));
  EXPECT_EQ(model.vmStructs().fieldOffset("Method", "_constMethod"), 8u);
  EXPECT_FALSE(model.vmStructs().fieldOffset("CodeCache", "_heaps").has_value()) << "static, not an offset";
  EXPECT_EQ(model.vmStructs().staticAddress("CodeCache", "_heaps"), 0x7f00u);
  EXPECT_EQ(model.vmStructs().type("ConstMethod")->size, 48u);
  EXPECT_EQ(model.vmStructs().constant("frame::interpreter_frame_method_offset"), -3);
  EXPECT_FALSE(model.vmStructs().constant("nope").has_value());
}

TEST(JvmJavaModel, KeepsTheLayoutOfFrozenFramesTheAgentFound) {
  StreamBuilder b = baseStream();
  JavaModel without;
  ASSERT_TRUE(load(without, b.bytes()));
  EXPECT_FALSE(without.continuationLayout().has_value());
  protocol::ContinuationLayout layout{36, 40, 12, 16, 20, 24, 56, 1};
  layout.threadTid = 16;
  layout.threadName = 28;
  layout.byteArrayBase = 16;
  layout.narrowOopBase = 0x7f0000000000;
  layout.narrowOopShift = 3;
  b.record(RecordType::kContinuationLayout, layout);
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));
  ASSERT_TRUE(model.continuationLayout().has_value());
  EXPECT_EQ(model.continuationLayout()->continuationTail, 40u);
  EXPECT_EQ(model.continuationLayout()->chunkBottom, 24u);
  EXPECT_EQ(model.continuationLayout()->chunkStack, 56u);
  EXPECT_EQ(model.continuationLayout()->compressedOops, 1);
  EXPECT_EQ(model.continuationLayout()->threadName, 28u);
  EXPECT_EQ(model.continuationLayout()->byteArrayBase, 16u);
  EXPECT_EQ(model.continuationLayout()->narrowOopBase, 0x7f0000000000u);
  EXPECT_EQ(model.continuationLayout()->narrowOopShift, 3);
}

// The loader sizes its reads of a virtual thread's name by this layout: offsets no Java object has end the
// session as a protocol error, as a hostile agent's records do.
TEST(JvmJavaModel, RefusesAFrozenFrameLayoutNoJvmHas) {
  protocol::ContinuationLayout plausible{36, 40, 12, 16, 20, 24, 56, 1};
  plausible.byteArrayLength = 12;
  plausible.byteArrayBase = 16;
  std::vector<protocol::ContinuationLayout> hostile(4, plausible);
  hostile[0].byteArrayBase = 0xFFFFFF04;
  hostile[1].byteArrayLength = 16;  // the length would overlap the elements
  hostile[2].threadName = 1u << 20;
  hostile[3].chunkStack = 0xFFFFFFF0;
  for (const protocol::ContinuationLayout& layout : hostile) {
    StreamBuilder b = baseStream();
    b.record(RecordType::kContinuationLayout, layout);
    JavaModel model;
    EXPECT_FALSE(load(model, b.bytes()));
    EXPECT_NE(model.error().find("ContinuationLayout"), std::string::npos) << model.error();
    EXPECT_FALSE(model.continuationLayout().has_value());
  }
  StreamBuilder b = baseStream();
  b.record(RecordType::kContinuationLayout, plausible);
  JavaModel model;
  EXPECT_TRUE(load(model, b.bytes())) << model.error();
}

// A hostile agent's waits of virtual threads with 64 KiB names: each name is kept cut to what an agent sends
// (at a character's start), and what the waits hold counts in the model's bytes, which --memory-limit and a
// JVM's share of it judge.
TEST(JvmJavaModel, VirtualThreadWaitsAreBoundedAndCounted) {
  StreamBuilder b = baseStream();
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));
  const size_t before = model.approximateBytes();
  std::string name(65'000, 'x');
  name.replace(JavaModel::kMaxVirtualThreadNameBytes - 1, 2, "\xC3\xA9");  // a 2-byte character across the cut
  for (int i = 0; i < 4000; ++i) {
    protocol::VirtualThreadWait record;
    record.threadId = static_cast<uint64_t>(i);
    record.name = name;
    StreamBuilder one;
    one.record(RecordType::kVirtualThreadWait, record);
    ASSERT_TRUE(model.apply(RecordType::kVirtualThreadWait, one.lastPayload()));
  }
  const size_t held = model.approximateBytes() - before;
  EXPECT_GT(held, 4000u * 300u) << "the waits' bytes are counted";
  EXPECT_LT(held, 4000u * 1024u) << "and their names are not kept whole";
  std::vector<JavaModel::VirtualThreadWaitInfo> waits = model.takeVirtualThreadWaits();
  ASSERT_EQ(waits.size(), 4000u);
  EXPECT_EQ(waits[0].name, std::string(JavaModel::kMaxVirtualThreadNameBytes - 1, 'x'));
  EXPECT_EQ(model.approximateBytes(), before) << "taken, no longer held";
}

// Records that wait for the agent's are counted by process, so that the memory budget sheds the JVM that
// holds them.
TEST(JvmMetadataWait, CountsEachProcessesBytes) {
  MetadataWait wait;
  const uint8_t record[64] = {};
  wait.keep(record, 64, 0, 100);
  wait.keep(record, 32, 0, 100);
  wait.keep(record, 16, 5, 200);
  EXPECT_EQ(wait.bytesOf(100), 96u);
  EXPECT_EQ(wait.bytesOf(200), 16u);
  EXPECT_EQ(wait.bytesOf(300), 0u);
  wait.retry(500, false, [](const void*, size_t size, bool) { return size == 64; });
  EXPECT_EQ(wait.bytesOf(100), 32u);
  wait.retry(1'000'000'006, false, [](const void*, size_t, bool) { return false; });
  EXPECT_EQ(wait.bytesOf(100), 0u) << "waited its time";
  EXPECT_EQ(wait.bytesOf(200), 0u);
  EXPECT_TRUE(wait.empty());
}

TEST(JvmJavaModel, RefusesRecordsBeforeHelloSecondHelloAndMalformedPayloads) {
  {
    StreamBuilder b;
    b.preamble().record(RecordType::kThreadEnd, protocol::ThreadEnd{1, 2, 3});
    JavaModel model;
    EXPECT_FALSE(load(model, b.bytes()));
    EXPECT_NE(model.error().find("before Hello"), std::string::npos);
  }
  {
    StreamBuilder b;
    b.preamble().hello().hello();
    JavaModel model;
    EXPECT_FALSE(load(model, b.bytes()));
  }
  {
    StreamBuilder b = baseStream();
    b.raw(RecordType::kMethod, {1, 2, 3});
    JavaModel model;
    EXPECT_FALSE(load(model, b.bytes()));
    EXPECT_NE(model.error().find("malformed Method"), std::string::npos);
    EXPECT_FALSE(model.apply(RecordType::kGoodbye, std::vector<uint8_t>(12, 0))) << "a failed model stays failed";
  }
  {
    StreamBuilder b = baseStream();
    b.compiled(compiled(~uint64_t{0} - 4, 0x100, kRoot, 1, 1), {kRoot}, {});
    JavaModel model;
    EXPECT_FALSE(load(model, b.bytes())) << "wrapping code range";
  }
}

TEST(JvmJavaModel, UnknownRecordTypesAreCountedAndSkipped) {
  StreamBuilder b = baseStream();
  b.raw(static_cast<RecordType>(900), {1, 2, 3, 4});
  b.record(RecordType::kLostRecords, protocol::LostRecords{5, 12, 3400});
  b.record(RecordType::kReplayEnd, protocol::ReplayEnd{1, 6, 1, 3, 0, 0, 0});
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));
  EXPECT_EQ(model.counters().records[0], 1u);
  EXPECT_EQ(model.counters().lostRecords, 12u);
  EXPECT_TRUE(model.initialReplayDone());
  EXPECT_EQ(model.lastReplay().methods, 3u);
}

TEST(JvmJavaModel, OutOfOrderPcTablesAreSorted) {
  StreamBuilder b = baseStream();
  b.compiled(compiled(0x7000, 0x100, kRoot, 100, 1), {kRoot, kLeaf},
             {{0x30, {{0, 9}}}, {0x10, {{1, 4}, {0, 1}}}, {0x30, {{1, 0}}}});
  JavaModel model;
  ASSERT_TRUE(load(model, b.bytes()));
  JavaFrame frames[4];
  ASSERT_EQ(model.compiledFrames(0x7008, 200, frames), 2u);
  EXPECT_EQ(frames[0].method->name, "leaf");
  ASSERT_EQ(model.compiledFrames(0x7020, 200, frames), 1u);
  EXPECT_EQ(frames[0].bci, 9) << "the first record for a duplicated pc wins";
}

// The fuzzer's seeds start deep only if they are valid streams: the synthetic one (first byte: the fuzz
// target's chunking) and the trimmed real captures load without error.
TEST(JvmSeedCorpus, SeedStreamsAreValid) {
  std::string dir = std::string(jfrbpf::test::kSourceDir) + "/tests/testdata/jvm/agent_channel/";
  for (const char* name : {"synthetic-history-0", "jdk17-compiled-with-methods", "jdk25-code-threads", "jdk17-vmstructs"}) {
    std::ifstream in(dir + name, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 1u) << name;
    JavaModel model;
    EXPECT_TRUE(load(model, std::vector<uint8_t>(bytes.begin() + 1, bytes.end()))) << name;
  }
  std::ifstream in(dir + "synthetic-history-0", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  JavaModel model;
  ASSERT_TRUE(load(model, std::vector<uint8_t>(bytes.begin() + 1, bytes.end())));
  EXPECT_EQ(model.goodbye(), protocol::GoodbyeReason::kVmDeath);
  EXPECT_EQ(model.code().compiledAt(0x7010, 150)->methodId, 0x2000u);
  EXPECT_EQ(model.methods().byPointer(0x800010000, 700)->name, "reused");
  EXPECT_EQ(model.counters().lostRecords, 12u);
}

}  // namespace
}  // namespace jfrbpf::jvm::test
