// Method timing pieces that need no JVM or BPF: JDK 25's statistics semantics, the channel records and
// commands, the loader's table of timed methods, the agent's command framing and hook class, finding a
// traced method's caller in a walked stack, the filter options, and the probe site helpers.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <thread>

#include "base/error.h"
#include "base/unique_fd.h"
#include "jvmsupport/agent/command_reader.h"
#include "jvmsupport/agent/hook_class.h"
#include "jvmsupport/agent/hook_stubs.h"
#include "jvmsupport/agent/timing_table.h"
#include "jvmsupport/classfile/rewriter.h"
#include "jvmsupport/protocol/allocation_records.h"
#include "jvmsupport/protocol/lock_records.h"
#include "jvmsupport/protocol/timing_records.h"
#include "jvmsupport/protocol/virtual_thread_records.h"
#include "tests/jvm/stream_builder.h"
#include "userspace/jvm/java_model.h"
#include "userspace/jvm/record_stream_parser.h"
#include "userspace/jvm/walked_frame.h"
#include "userspace/proc/paths.h"
#include "userspace/timing/method_statistics.h"
#include "userspace/timing/method_timing_options.h"
#include "userspace/timing/probe_sites.h"
#include "userspace/timing/timing_table_view.h"
#include "userspace/timing/trace_stack.h"

extern "C" void timing_test_nop5_site();
__asm__(".text\n.globl timing_test_nop5_site\n.type timing_test_nop5_site,@function\ntiming_test_nop5_site:\n"
        ".byte 0x0f,0x1f,0x44,0x00,0x00\nret\n.size timing_test_nop5_site,.-timing_test_nop5_site\n");

namespace jfrbpf::timing {
namespace {

using jvm::test::StreamBuilder;
using jvm::test::VectorSink;
using protocol::RecordType;

template <typename Record>
std::vector<uint8_t> encoded(const Record& record) {
  std::vector<uint8_t> bytes;
  VectorSink sink{bytes};
  protocol::WireWriter<VectorSink> w(sink);
  protocol::encode(w, record);
  return bytes;
}

// ---- statistics -------------------------------------------------------------------------------------------

TEST(TimingStatistics, AverageRoundsToNearestAsTheJdkDoes) {
  MethodTimingValues v = timingValues({3, 10, 2, 5});  // 10 / 3 = 3.33 -> 3
  EXPECT_EQ(v.invocations, 3);
  EXPECT_EQ(v.average, 3);
  v = timingValues({2, 5, 2, 3});  // (5 + 1) / 2 = 3: halves round up
  EXPECT_EQ(v.average, 3);
  EXPECT_EQ(v.minimum, 2);
  EXPECT_EQ(v.maximum, 3);
}

TEST(TimingStatistics, MinimumAndMaximumIncludeTheAverage) {
  // A min/max update lost to preemption may leave them inside the average: the JDK widens them.
  MethodTimingValues v = timingValues({4, 400, 150, 120});
  EXPECT_EQ(v.average, 100);
  EXPECT_EQ(v.minimum, 100);
  EXPECT_EQ(v.maximum, 120);
  v = timingValues({4, 400, 0, 0});  // no min/max recorded yet
  EXPECT_EQ(v.minimum, 100);
  EXPECT_EQ(v.maximum, 100);
}

TEST(TimingStatistics, NothingMeasuredIsMissingNotZero) {
  MethodTimingValues none = timingValues({});
  EXPECT_EQ(none.invocations, 0);
  EXPECT_EQ(none.minimum, kMissing);
  EXPECT_EQ(none.average, kMissing);
  EXPECT_EQ(none.maximum, kMissing);
  MethodTimingValues zeroTime = timingValues({5, 0, 0, 0});
  EXPECT_EQ(zeroTime.invocations, 5) << "invocations are reported even when the time is unmeasurable";
  EXPECT_EQ(zeroTime.average, kMissing);
}

TEST(TimingStatistics, MergeTakesTheSmallestRealMinimum) {
  MethodStats total;
  total.merge(MethodStats{0, 0, 0, 0});  // a slot never entered
  total.merge(MethodStats{2, 30, 10, 20});
  total.merge(MethodStats{1, 5, 5, 5});
  EXPECT_EQ(total.invocations, 3u);
  EXPECT_EQ(total.totalNs, 35u);
  EXPECT_EQ(total.minNs, 5u);
  EXPECT_EQ(total.maxNs, 20u);
}

TEST(TimingStatistics, HugeSumsDoNotOverflow) {
  uint64_t big = std::numeric_limits<uint64_t>::max() - 1;
  MethodTimingValues v = timingValues({2, big, 1, big});
  EXPECT_EQ(v.average, std::numeric_limits<int64_t>::max()) << "clamped to a long";
}

// ---- records and commands ----------------------------------------------------------------------------------

TEST(AllocationProtocol, RecordsRoundTripAndACommandAsksForOneThing) {
  protocol::StartAllocations byInterval{512 * 1024, 0}, back;
  ASSERT_TRUE(protocol::decode(encoded(byInterval), back));
  EXPECT_EQ(back.intervalBytes, 512u * 1024);
  EXPECT_EQ(back.samplesPerSecond, 0u);
  ASSERT_TRUE(protocol::decode(encoded(protocol::StartAllocations{0, 300}), back));
  EXPECT_EQ(back.samplesPerSecond, 300u);
  EXPECT_FALSE(protocol::decode(encoded(protocol::StartAllocations{1024, 300}), back)) << "an interval and a rate";
  EXPECT_FALSE(protocol::decode(encoded(protocol::StartAllocations{0, 0}), back)) << "neither";

  protocol::AllocationStatus status{9, static_cast<uint32_t>(protocol::AllocationState::kUnavailable), 1, 4096, "why"};
  protocol::AllocationStatus statusBack;
  ASSERT_TRUE(protocol::decode(encoded(status), statusBack));
  EXPECT_EQ(statusBack.state, static_cast<uint32_t>(protocol::AllocationState::kUnavailable));
  EXPECT_EQ(statusBack.weightFromCounters, 1u);
  EXPECT_EQ(statusBack.intervalBytes, 4096u);
  EXPECT_EQ(statusBack.message, "why");
  const std::vector<uint8_t> bytes = encoded(status);
  EXPECT_FALSE(protocol::decode(std::span(bytes).first(10), statusBack)) << "cut short";
}

TEST(LockProtocol, RecordsRoundTrip) {
  protocol::StartLocks start{20'000'000}, back;
  ASSERT_TRUE(protocol::decode(encoded(start), back));
  EXPECT_EQ(back.thresholdNs, 20'000'000u);

  protocol::LockStatus status{9, static_cast<uint32_t>(protocol::LockState::kStarted), 0, "no Method size"};
  protocol::LockStatus statusBack;
  ASSERT_TRUE(protocol::decode(encoded(status), statusBack));
  EXPECT_EQ(statusBack.state, static_cast<uint32_t>(protocol::LockState::kStarted));
  EXPECT_EQ(statusBack.parks, 0u);
  EXPECT_EQ(statusBack.message, "no Method size");
  const std::vector<uint8_t> bytes = encoded(status);
  EXPECT_FALSE(protocol::decode(std::span(bytes).first(10), statusBack)) << "cut short";
  // The hook flags of the five kinds of trace record stay apart.
  EXPECT_EQ(protocol::kHookLock & (protocol::kHookTimed | protocol::kHookTraced | protocol::kHookAllocation), 0u);
  EXPECT_EQ((protocol::kHookLockWait | protocol::kHookLockPark | protocol::kHookLockUntil | protocol::kHookLockTimedOut) &
                protocol::kHookSlotMask,
            0u);
}

TEST(TimingProtocol, RecordsRoundTrip) {
  protocol::TimedMethod method{7, 42 | protocol::kHookTimed | protocol::kHookTraced, 0x11, 0x9, "com/foo/Bar", "run",
                               "(I)V"};
  protocol::TimedMethod back;
  ASSERT_TRUE(protocol::decode(encoded(method), back));
  EXPECT_EQ(back.hookIndex, method.hookIndex);
  EXPECT_EQ(back.classModifiers, 0x11u);
  EXPECT_EQ(back.methodModifiers, 0x9u);
  EXPECT_EQ(back.className, "com/foo/Bar");
  EXPECT_EQ(back.methodName, "run");
  EXPECT_EQ(back.descriptor, "(I)V");

  std::string longFilter(70000, 'x');
  protocol::StartTiming start{100, 200, 5'000'000, "com.foo.Bar::run", longFilter, 2'000'000};
  protocol::StartTiming startBack;
  const std::vector<uint8_t> startBytes = encoded(start);  // the decoded filters point into it
  ASSERT_TRUE(protocol::decode(startBytes, startBack));
  EXPECT_EQ(startBack.slotBase, 100u);
  EXPECT_EQ(startBack.slotLimit, 200u);
  EXPECT_EQ(startBack.traceThresholdNs, 5'000'000u);
  EXPECT_EQ(startBack.timingFilter, "com.foo.Bar::run");
  EXPECT_EQ(startBack.traceFilter.size(), 70000u) << "filters are not cut at 64 KiB";
  EXPECT_EQ(startBack.virtualWaitIntervalNs, 2'000'000u);
  EXPECT_EQ(protocol::StartTiming{}.virtualWaitIntervalNs, protocol::kNoVirtualThreadWaits) << "asked for explicitly";
  // A virtual thread's wait is the agent's own flag, apart from the slot and from every trace record's flags.
  EXPECT_EQ(protocol::kHookVirtualWait & protocol::kHookSlotMask, 0u);
  EXPECT_EQ(protocol::kHookVirtualWait & (protocol::kHookTimed | protocol::kHookTraced | protocol::kHookAllocation |
                                          protocol::kHookLock | protocol::kHookLockWait | protocol::kHookLockPark |
                                          protocol::kHookLockUntil | protocol::kHookLockTimedOut),
            0u);

  // A picked wait of a virtual thread, with its frames.
  const uint8_t frames[2 * protocol::kWaitFrameSize] = {0x10, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0,
                                                        0x20, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  protocol::VirtualThreadWait wait{10, 20'000'000, 20'000'000, 77, protocol::kWaitStackTruncated, "handler-7", 2, frames};
  protocol::VirtualThreadWait waitBack;
  const std::vector<uint8_t> waitBytes = encoded(wait);
  ASSERT_TRUE(protocol::decode(waitBytes, waitBack));
  EXPECT_EQ(waitBack.threadId, 77u);
  EXPECT_EQ(waitBack.name, "handler-7");
  EXPECT_EQ(waitBack.flags, protocol::kWaitStackTruncated);
  ASSERT_EQ(waitBack.frameCount, 2u);
  EXPECT_EQ(waitBack.methodIdAt(1), 0x20u);
  EXPECT_EQ(waitBack.bciAt(0), 3);
  EXPECT_EQ(waitBack.bciAt(1), -1);
  EXPECT_FALSE(protocol::decode(std::span(waitBytes).first(waitBytes.size() - 1), waitBack)) << "a frame cut short";

  protocol::TimingStatus status{1, 1, 2, 3, 4, 5, 0x7f0000001000, 8192, "ok"};
  protocol::TimingStatus statusBack;
  ASSERT_TRUE(protocol::decode(encoded(status), statusBack));
  EXPECT_EQ(statusBack.methodsSkipped, 4u);
  EXPECT_EQ(statusBack.tableAddress, 0x7f0000001000u);
  EXPECT_EQ(statusBack.tableBytes, 8192u);
  EXPECT_EQ(statusBack.message, "ok");

  std::vector<uint8_t> truncated = encoded(method);
  truncated.pop_back();
  EXPECT_FALSE(protocol::decode(truncated, back));
}

TEST(TimingProtocol, ThreadStartCarriesTheJavaThreadWhenKnown) {
  protocol::ThreadStart current{5, 77, protocol::kThreadDaemon, 3, "worker", 0x7f0012345000};
  std::vector<uint8_t> bytes = encoded(current);
  protocol::ThreadStart back;
  ASSERT_TRUE(protocol::decode(bytes, back));
  EXPECT_EQ(back.javaThread, 0x7f0012345000u);
  EXPECT_EQ(back.name, "worker");
  EXPECT_EQ(back.flags, protocol::kThreadDaemon | protocol::kThreadHasJavaThread);
  bytes.pop_back();
  EXPECT_FALSE(protocol::decode(bytes, back)) << "announced, so required";

  // Unknown (and every record of an older agent): no flag, no field, the record ends at the name.
  protocol::ThreadStart unknown{5, 77, 0, 3, "worker", 0};
  std::vector<uint8_t> old = encoded(unknown);
  EXPECT_EQ(old.size(), bytes.size() + 1 - sizeof(uint64_t));
  ASSERT_TRUE(protocol::decode(old, back));
  EXPECT_EQ(back.javaThread, 0u);
}

TEST(TimingModel, PublishesJavaThreadPointers) {
  StreamBuilder b;
  b.preamble().hello();
  b.record(RecordType::kThreadStart, protocol::ThreadStart{0, 501, protocol::kThreadReplayed, 1, "main", 0x7f00001000});
  b.record(RecordType::kThreadStart, protocol::ThreadStart{10, 502, 0, 12, "worker", 0x7f00002000});
  jvm::JavaModel model;
  uint64_t before = model.threads().version();
  jvm::RecordStreamParser parser;
  ASSERT_TRUE(parser.feed(b.bytes(), [&](RecordType type, std::span<const uint8_t> payload) {
    return model.apply(type, payload);
  })) << model.error();
  ASSERT_NE(model.threads().byJavaId(12), nullptr);
  EXPECT_EQ(model.threads().byJavaId(12)->javaThread, 0x7f00002000u);
  EXPECT_EQ(model.threads().byJavaId(1)->javaThread, 0x7f00001000u);
  EXPECT_NE(model.threads().version(), before) << "consumers see that the table changed";
}

TEST(TimingModel, KeepsOnlyMethodsInsideTheAssignedSlots) {
  StreamBuilder b;
  b.preamble().hello();
  b.record(RecordType::kHookSites, protocol::HookSites{0x1010, "jfrbpf/agent/MethodTimer"});
  b.record(RecordType::kTimedMethod, protocol::TimedMethod{1, 10 | protocol::kHookTimed, 1, 9, "A", "early", "()V"});
  jvm::JavaModel model;
  model.timedMethods().setSlotRange(100, 200);
  b.record(RecordType::kTimedMethod, protocol::TimedMethod{1, 150 | protocol::kHookTraced, 1, 9, "A", "in", "()V"});
  b.record(RecordType::kTimedMethod, protocol::TimedMethod{1, 150 | protocol::kHookTimed, 1, 9, "A", "again", "()V"});
  b.record(RecordType::kTimedMethod, protocol::TimedMethod{1, 200 | protocol::kHookTimed, 1, 9, "A", "past", "()V"});
  b.record(RecordType::kTimedMethod, protocol::TimedMethod{1, 160, 1, 9, "A", "flagless", "()V"});
  b.record(RecordType::kTimingSkipped, protocol::TimingSkipped{1, "A", "big", "()V", "method too large"});
  b.record(RecordType::kTimingStatus, protocol::TimingStatus{2, 1, 1, 1, 1, 0, 0, 0, ""});
  jvm::RecordStreamParser parser;
  ASSERT_TRUE(parser.feed(b.bytes(), [&](RecordType type, std::span<const uint8_t> payload) {
    return model.apply(type, payload);
  })) << model.error();

  const jvm::TimedMethods& timed = model.timedMethods();
  ASSERT_TRUE(timed.hookSites().has_value());
  EXPECT_EQ(timed.hookSites()->traceSite, 0x1010u);
  EXPECT_EQ(timed.size(), 1u);
  ASSERT_NE(timed.bySlot(150), nullptr);
  EXPECT_EQ(timed.bySlot(150)->methodName, "in");
  EXPECT_TRUE(timed.bySlot(150)->traced());
  EXPECT_FALSE(timed.bySlot(150)->timed());
  EXPECT_EQ(timed.refused(), 4u) << "10 (before the range), 150 again, 200 (past it), 160 without flags";
  ASSERT_EQ(timed.skips().size(), 1u);
  EXPECT_EQ(timed.skips()[0].reason, "method too large");
  ASSERT_TRUE(timed.status().has_value());
  EXPECT_EQ(timed.status()->state, protocol::TimingState::kApplied);
}

// ---- the agent's side ---------------------------------------------------------------------------------------

class TimingCommandReader : public testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  void TearDown() override {
    if (fds_[0] >= 0) close(fds_[0]);
    if (fds_[1] >= 0) close(fds_[1]);
  }
  void send(const std::vector<uint8_t>& bytes) {
    ASSERT_EQ(write(fds_[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  static std::vector<uint8_t> command(protocol::CommandType type, const std::vector<uint8_t>& payload) {
    std::vector<uint8_t> bytes(6);
    uint32_t length = static_cast<uint32_t>(payload.size());
    uint16_t typeValue = static_cast<uint16_t>(type);
    std::memcpy(bytes.data(), &length, 4);
    std::memcpy(bytes.data() + 4, &typeValue, 2);
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    return bytes;
  }
  int fds_[2] = {-1, -1};
  agent::CommandReader reader_;
};

TEST_F(TimingCommandReader, AssemblesCommandsFromPieces) {
  std::vector<uint8_t> bytes = command(protocol::CommandType::kStartTiming,
                                       encoded(protocol::StartTiming{0, 10, 0, "A::b", ""}));
  std::vector<uint8_t> first(bytes.begin(), bytes.begin() + 3), rest(bytes.begin() + 3, bytes.end());
  protocol::CommandType type{};
  std::span<const uint8_t> payload;
  send(first);
  EXPECT_EQ(reader_.receive(fds_[0]), agent::CommandReader::Status::kOpen);
  EXPECT_FALSE(reader_.next(type, payload)) << "a partial header is not a command";
  send(rest);
  EXPECT_EQ(reader_.receive(fds_[0]), agent::CommandReader::Status::kOpen);
  ASSERT_TRUE(reader_.next(type, payload));
  EXPECT_EQ(type, protocol::CommandType::kStartTiming);
  protocol::StartTiming start;
  ASSERT_TRUE(protocol::decode(payload, start));
  EXPECT_EQ(start.timingFilter, "A::b");
  EXPECT_FALSE(reader_.next(type, payload));
  close(fds_[1]);
  fds_[1] = -1;
  EXPECT_EQ(reader_.receive(fds_[0]), agent::CommandReader::Status::kClosed);
}

TEST_F(TimingCommandReader, RefusesOversizedCommands) {
  std::vector<uint8_t> header(6, 0);
  uint32_t huge = protocol::kMaxCommandPayload + 1;
  std::memcpy(header.data(), &huge, 4);
  send(header);
  EXPECT_EQ(reader_.receive(fds_[0]), agent::CommandReader::Status::kBroken);
  protocol::CommandType type{};
  std::span<const uint8_t> payload;
  EXPECT_FALSE(reader_.next(type, payload));
}

TEST(TimingHookClass, IsTheCompiledMethodTimerWithItsTwoHooks) {
  std::span<const uint8_t> bytes(agent::kMethodTimerClass, agent::kMethodTimerClass_size);
  classfile::ClassInfoResult info = classfile::readClassInfo(bytes);
  ASSERT_TRUE(info.info.has_value()) << info.error;
  EXPECT_EQ(info.info->name, agent::kHookClassName);
  EXPECT_EQ(info.info->majorVersion, 52) << "loadable by every JDK the agent supports";
  std::map<std::string, std::pair<std::string, uint16_t>> methods;
  for (const classfile::MethodInfo& m : info.info->methods) methods[m.name] = {m.descriptor, m.accessFlags};
  using Method = std::pair<std::string, uint16_t>;
  EXPECT_EQ(methods[agent::kHookEnterMethod], Method("(I)J", 0x0009)) << "public static";
  EXPECT_EQ(methods[agent::kHookExitMethod], Method("(IIJ)V", 0x0009)) << "public static";
  EXPECT_EQ(methods["traced"], Method("(IJJ)V", 0x010a)) << "private static native";
}

// ---- finding the caller in a traced stack -------------------------------------------------------------------

const jvm::ModelNow kNow = [] { return uint64_t{200}; };
constexpr uint64_t kTraced = 0x100, kCaller = 0x200, kHook = 0x300;
constexpr uint64_t kTracedPtr = 0x800010000, kCallerPtr = 0x800020000;

void loadTracingModel(jvm::JavaModel& model) {
  StreamBuilder b;
  b.preamble().hello();
  b.record(RecordType::kClass, protocol::ClassInfo{1, 0, 1, protocol::kReplayed, "com/example/Work"});
  b.record(RecordType::kClass, protocol::ClassInfo{2, 0, 1, protocol::kReplayed, "jfrbpf/agent/MethodTimer"});
  auto method = [](uint64_t id, uint64_t classId, uint64_t ptr, std::string_view name, std::string_view sig) {
    protocol::MethodInfo m;
    m.methodId = id;
    m.classId = classId;
    m.methodPtr = ptr;
    m.codeStart = ptr + 0x40;
    m.codeSize = 32;
    m.flags = protocol::kReplayed;
    m.name = name;
    m.signature = sig;
    return m;
  };
  b.method(method(kTraced, 1, kTracedPtr, "compute", "(I)J"), {{0, 10}});
  b.method(method(kCaller, 1, kCallerPtr, "main", "([Ljava/lang/String;)V"), {{0, 20}});
  b.method(method(kHook, 2, 0x800030000, "exit", "(I)V"), {});
  protocol::CompiledMethodLoad compiled;
  compiled.time = 1;
  compiled.methodId = kCaller;
  compiled.codeStart = 0x7000;
  compiled.codeSize = 0x100;
  compiled.flags = protocol::kCompiledReplayed;
  b.compiled(compiled, {kCaller, kTraced}, {{0x20, {{1, 4}, {0, 7}}}, {0x40, {{0, 9}}}});
  jvm::RecordStreamParser parser;
  ASSERT_TRUE(parser.feed(b.bytes(), [&](RecordType type, std::span<const uint8_t> payload) {
    return model.apply(type, payload);
  })) << model.error();
}

jvm::TimedMethodInfo tracedMethod() {
  jvm::TimedMethodInfo m;
  m.hookIndex = 1 | protocol::kHookTraced;
  m.className = "com/example/Work";
  m.methodName = "compute";
  m.descriptor = "(I)J";
  return m;
}

// The rules both the stack resolver and the traces name walked frames by (jvm/walked_frame.h).
TEST(WalkedFrame, TheInterruptedFramesLiveBcpWinsWhereItLiesInTheMethod) {
  jvm::JavaModel model;
  ASSERT_NO_FATAL_FAILURE(loadTracingModel(model));
  // compute's bytecode is at kTracedPtr + 0x40, 32 bytes: the slot says bci 0, the live register bci 5.
  std::optional<jvm::JavaFrame> frame = jvm::interpretedJavaFrame(model, kTracedPtr, kTracedPtr + 0x40, 100, kTracedPtr + 0x45);
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->bci, 5);
  frame = jvm::interpretedJavaFrame(model, kTracedPtr, kTracedPtr + 0x40, 100, 0x1234);  // a stale register
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->bci, 0);
  EXPECT_FALSE(jvm::interpretedJavaFrame(model, 0x800090000, 0x800090040, 100)) << "a Method* never described";
}

TEST(WalkedFrame, CompiledCodeGivesItsInlineChainThenItsOwnMethod) {
  jvm::JavaModel model;
  ASSERT_NO_FATAL_FAILURE(loadTracingModel(model));
  uint64_t ticks = 100;
  jvm::PcInfo info = jvm::codeAtWalkedPc(model, 0x7020, ticks, kNow);
  ASSERT_EQ(info.kind, jvm::CodeKind::kCompiled);
  std::array<jvm::JavaFrame, 8> scratch;
  size_t count = jvm::compiledJavaFrames(model, *info.compiled, 0x7020, ticks, scratch);
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(scratch[0].method->name, "compute") << "the inlined callee first";
  EXPECT_EQ(scratch[1].method->name, "main") << "the blob's own method last";
  count = jvm::compiledJavaFrames(model, *info.compiled, 0x70f0, ticks, scratch);  // no debug info there
  ASSERT_EQ(count, 1u);
  ASSERT_NE(scratch[0].method, nullptr);
  EXPECT_EQ(scratch[0].method->name, "main");
  EXPECT_EQ(scratch[0].bci, -1);
  EXPECT_EQ(jvm::codeAtWalkedPc(model, 0x9000, ticks, kNow).kind, jvm::CodeKind::kUnknown);
}

TEST(TimingTraceStack, DropsAnInterpretedTracedFrameWhole) {
  jvm::JavaModel model;
  ASSERT_NO_FATAL_FAILURE(loadTracingModel(model));
  auto record = std::make_unique<jfrbpf_sample_record>();
  record->time_ns = 100;
  record->user_depth = 5;
  uint64_t frames[] = {0x5000, 0,  // the trace stub (native)
                       0x5100, 0,  // the native function `traced` is bound to
                       0x6000, 0,  // the hook's native wrapper
                       kTracedPtr + 0x45, kTracedPtr, kCallerPtr + 0x48, kCallerPtr};
  std::memcpy(record->data, frames, sizeof frames);
  std::array<jvm::JavaFrame, 8> scratch;
  CallerFrames caller = findCaller(model, *record, tracedMethod(), kNow, scratch);
  ASSERT_TRUE(caller.found);
  EXPECT_EQ(caller.rawFrames, 4u);
  EXPECT_EQ(caller.resolvedFrames, 0u);
  dropTopFrames(*record, caller.rawFrames);
  ASSERT_EQ(record->user_depth, 1u);
  EXPECT_EQ(record->data[1], kCallerPtr) << "the caller's interpreted frame is now the top";
}

TEST(TimingTraceStack, DropsOnlyTheInlinedPartOfACompiledFrame) {
  jvm::JavaModel model;
  ASSERT_NO_FATAL_FAILURE(loadTracingModel(model));
  auto record = std::make_unique<jfrbpf_sample_record>();
  record->time_ns = 100;
  record->user_depth = 2;
  uint64_t frames[] = {0x5000, 0, 0x7020, 0};  // stub, then the caller's code with compute inlined at 0x20
  std::memcpy(record->data, frames, sizeof frames);
  std::array<jvm::JavaFrame, 8> scratch;
  CallerFrames caller = findCaller(model, *record, tracedMethod(), kNow, scratch);
  ASSERT_TRUE(caller.found);
  EXPECT_EQ(caller.rawFrames, 1u) << "the stub goes";
  EXPECT_EQ(caller.resolvedFrames, 1u) << "then the inlined compute, keeping main from the same frame";

  frames[2] = 0x7040;  // a pc of main itself: compute is not in this stack
  std::memcpy(record->data, frames, sizeof frames);
  EXPECT_FALSE(findCaller(model, *record, tracedMethod(), kNow, scratch).found);
}

TEST(TimingTraceStack, WithoutTheTracedFrameDropsOnlyTheHooksFrames) {
  jvm::JavaModel model;
  ASSERT_NO_FATAL_FAILURE(loadTracingModel(model));
  auto record = std::make_unique<jfrbpf_sample_record>();
  record->time_ns = 100;
  record->user_depth = 4;
  uint64_t hookPtr = 0x800030000;
  // trace stub, the native `traced` is bound to, MethodTimer.traced, unknown code
  uint64_t frames[] = {0x5000, 0, 0x5100, 0, hookPtr + 0x40, hookPtr, 0x9000, 0};
  std::memcpy(record->data, frames, sizeof frames);
  std::array<jvm::JavaFrame, 8> scratch;
  EXPECT_EQ(hookFrames(model, *record, "jfrbpf/agent/MethodTimer", kNow, scratch), 3u);
  frames[5] = kCallerPtr;  // not the hook's frame after all
  std::memcpy(record->data, frames, sizeof frames);
  EXPECT_EQ(hookFrames(model, *record, "jfrbpf/agent/MethodTimer", kNow, scratch), 1u) << "only the trace stub is certain";
}

// ---- the shared timing table -------------------------------------------------------------------------------

constexpr uint32_t kBase = 100;

// A cleared table for slots [kBase, kBase + slots).
void prepareTable(agent::TimingTable& table, uint32_t slots, protocol::TimingTableHeader*& header) {
  const char* error = nullptr;
  header = table.prepare(kBase, slots, error);
  ASSERT_NE(header, nullptr) << error;
}

// What MethodTimer.count does for one invocation on a thread of stripe `stripe` (the JVM tests run the real one).
void countInvocation(protocol::TimingTableHeader* header, uint32_t stripe, uint32_t slot, uint64_t durationNs) {
  protocol::TimingRow& row = protocol::timingRows(header)[protocol::timingRowIndex(*header, stripe, slot - kBase)];
  ++row.invocations;
  row.totalNs += durationNs;
  if (row.minNs == 0 || durationNs < row.minNs) row.minNs = durationNs;
  row.maxNs = std::max(row.maxNs, durationNs);
}

TEST(TimingTableViewTest, ReadsTheAgentsTableThroughMapFiles) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: /proc/PID/map_files needs CAP_SYS_ADMIN";
  agent::TimingTable table;
  protocol::TimingTableHeader* header = nullptr;
  ASSERT_NO_FATAL_FAILURE(prepareTable(table, 8, header));
  EXPECT_EQ(header->stripes, protocol::kTimingStripes);
  countInvocation(header, 0, kBase + 2, 500);
  countInvocation(header, 5, kBase + 2, 300);
  countInvocation(header, protocol::kTimingStripes - 1, kBase + 2, 900);
  countInvocation(header, 5, kBase + 7, 40);
  header->counters.badSlot = 1;
  timing::TimingTableView view(getpid(), table.address(), table.mappedBytes(), kBase, 8);
  EXPECT_TRUE(view.hasSlot(kBase + 7));
  EXPECT_FALSE(view.hasSlot(kBase + 8));
  MethodStats two = view.read(kBase + 2);
  EXPECT_EQ(two.invocations, 3u) << "the stripes summed";
  EXPECT_EQ(two.totalNs, 1700u);
  EXPECT_EQ(two.minNs, 300u);
  EXPECT_EQ(two.maxNs, 900u);
  EXPECT_EQ(view.read(kBase + 7).invocations, 1u) << "each slot its own rows";
  EXPECT_EQ(view.read(kBase + 7).minNs, 40u);
  EXPECT_EQ(view.counters().badSlot, 1u);
  EXPECT_EQ(view.read(kBase + 9).invocations, 0u) << "outside the table";
  countInvocation(header, 3, kBase + 3, 10);
  EXPECT_EQ(view.read(kBase + 3).invocations, 1u) << "the same pages, not a copy";
  EXPECT_THROW(timing::TimingTableView(getpid(), table.address(), table.mappedBytes(), kBase + 1, 8), Error)
      << "another JVM's slots";
  EXPECT_THROW(timing::TimingTableView(getpid(), table.address(), 64, kBase, 8), Error) << "too small";
}

TEST(TimingTableViewTest, ALaterRecordingGetsItsTableCleared) {
  agent::TimingTable table;
  protocol::TimingTableHeader* header = nullptr;
  ASSERT_NO_FATAL_FAILURE(prepareTable(table, 8, header));
  countInvocation(header, 7, kBase + 1, 25);
  header->counters.tracesCalled = 4;
  const uint64_t address = table.address();
  ASSERT_NO_FATAL_FAILURE(prepareTable(table, 8, header));
  EXPECT_EQ(table.address(), address) << "the same mapping, reused";
  EXPECT_EQ(protocol::timingRows(header)[protocol::timingRowIndex(*header, 7, 1)].invocations, 0u);
  EXPECT_EQ(header->counters.tracesCalled, 0u);
  EXPECT_EQ(header->magic, protocol::kTimingTableMagic);
}

// The header lives in memory the target writes: a slot count changed after the view checked it must not move
// the loader's reads outside the mapping (a count of 2^31 read 64 GiB past it), nor onto other rows.
TEST(TimingTableViewTest, ASlotCountChangedAfterMappingMovesNoRead) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: /proc/PID/map_files needs CAP_SYS_ADMIN";
  agent::TimingTable table;
  protocol::TimingTableHeader* header = nullptr;
  ASSERT_NO_FATAL_FAILURE(prepareTable(table, 8, header));
  countInvocation(header, protocol::kTimingStripes - 1, kBase + 7, 70);
  timing::TimingTableView view(getpid(), table.address(), table.mappedBytes(), kBase, 8);
  header->slotCount = 0x7fffffff;
  MethodStats last = view.read(kBase + 7);
  EXPECT_EQ(last.invocations, 1u);
  EXPECT_EQ(last.minNs, 70u);
  header->slotCount = 1;
  EXPECT_EQ(view.read(kBase + 7).invocations, 1u) << "the rows of the count checked, not of the one written since";
}

// A target that truncates the file behind its table must not kill the loader with SIGBUS: the agent's memfd
// cannot shrink, and a table in a file that could is not mapped at all.
TEST(TimingTableViewTest, MapsOnlyATableThatCannotShrink) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: /proc/PID/map_files needs CAP_SYS_ADMIN";
  agent::TimingTable table;
  protocol::TimingTableHeader* header = nullptr;
  ASSERT_NO_FATAL_FAILURE(prepareTable(table, 8, header));
  const std::string path = proc::mapFilesPath(getpid(), table.address(), table.address() + table.mappedBytes());
  UniqueFd agentFile(open(path.c_str(), O_RDWR | O_CLOEXEC));
  ASSERT_TRUE(agentFile) << path;
  EXPECT_NE(ftruncate(agentFile.get(), 0), 0) << "the agent's table shrank";
  EXPECT_EQ(errno, EPERM);

  const size_t bytes = table.mappedBytes();
  UniqueFd unsealed(static_cast<int>(syscall(SYS_memfd_create, "unsealed-table", 0)));
  ASSERT_TRUE(unsealed);
  ASSERT_EQ(ftruncate(unsealed.get(), static_cast<off_t>(bytes)), 0);
  void* copy = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, unsealed.get(), 0);
  ASSERT_NE(copy, MAP_FAILED);
  std::memcpy(copy, header, bytes);
  try {
    timing::TimingTableView view(getpid(), reinterpret_cast<uintptr_t>(copy), bytes, kBase, 8);
    ADD_FAILURE() << "a table in a file that can shrink was mapped";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not memory sealed"), std::string::npos) << e.what();
  }
  munmap(copy, bytes);
}

// ---- options and probe sites ---------------------------------------------------------------------------------

TEST(TimingOptions, FiltersBecomeCanonicalText) {
  EXPECT_EQ(parseFilterOption("--method-timing", " com.foo.Bar::run ; ::<clinit> "), "com.foo.Bar::run;::<clinit>");
  try {
    parseFilterOption("--method-timing", "com.foo.Bar::");
    FAIL() << "a filter without a method name after '::' must be refused";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_EQ(message.rfind("invalid --method-timing filter at column", 0), 0u) << message;
    EXPECT_NE(message.find("\n  com.foo.Bar::\n"), std::string::npos) << message;
    EXPECT_NE(message.find('^'), std::string::npos) << message;
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
  }
  EXPECT_THROW(parseFilterOption("--method-trace", " ; "), Error) << "a filter that selects nothing";
}

TEST(TimingProbeSites, FindsTheFileOffsetOfACodeAddress) {
  uint64_t site = reinterpret_cast<uintptr_t>(&timing_test_nop5_site);
  ProbeTarget target = locateProbeSite(getpid(), site);
  EXPECT_EQ(target.path.rfind("/proc/" + std::to_string(getpid()) + "/map_files/", 0), 0u) << target.path;
  std::ifstream file(target.path, std::ios::binary);
  ASSERT_TRUE(file.is_open()) << target.path;
  file.seekg(static_cast<std::streamoff>(target.fileOffset));
  char bytes[5] = {};
  file.read(bytes, 5);
  EXPECT_EQ(std::memcmp(bytes, reinterpret_cast<const void*>(site), 5), 0) << "the offset names the site's bytes";
  EXPECT_EQ(readProbeSiteState(getpid(), site), ProbeSiteState::kNop);
  EXPECT_EQ(readProbeSiteState(getpid(), reinterpret_cast<uintptr_t>(&locateProbeSite)), ProbeSiteState::kUnknown);
  EXPECT_THROW(locateProbeSite(getpid(), 16), Error);
}

}  // namespace
}  // namespace jfrbpf::timing
