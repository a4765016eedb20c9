// Record layouts: every record survives encode -> decode, and every truncation of it is rejected.
#include <gtest/gtest.h>

#include "jvmsupport/agent/agent_options.h"
#include "jvmsupport/protocol/records.h"
#include "tests/jvm/stream_builder.h"

namespace jfrbpf::jvm::test {
namespace {

using protocol::RecordType;

template <typename Record>
void expectEveryTruncationRejected(std::span<const uint8_t> payload) {
  for (size_t n = 0; n < payload.size(); ++n) {
    Record r;
    EXPECT_FALSE(protocol::decode(payload.first(n), r)) << "accepted a payload cut at " << n << " of " << payload.size();
  }
}

TEST(JvmProtocol, HelloRoundTrip) {
  std::array<uint8_t, protocol::kTokenSize> token{};
  for (size_t i = 0; i < token.size(); ++i) token[i] = static_cast<uint8_t>(i * 7);
  StreamBuilder b;
  b.hello(3, token);
  protocol::Hello h;
  ASSERT_TRUE(protocol::decode(b.lastPayload(), h));
  EXPECT_EQ(h.token, token);
  EXPECT_EQ(h.pid, 4242u);
  EXPECT_EQ(h.sessionNumber, 3u);
  EXPECT_EQ(h.jvmtiVersion, 0x30110000u);
  EXPECT_EQ(h.vmName, "Test VM");
  EXPECT_EQ(h.vmVersion, "17-test");
  expectEveryTruncationRejected<protocol::Hello>(b.lastPayload());
}

TEST(JvmProtocol, MethodRoundTrip) {
  protocol::MethodInfo m;
  m.time = 11;
  m.methodId = 0x7f0000001000;
  m.classId = 5;
  m.methodPtr = 0x800001000;
  m.codeStart = 0x800001060;
  m.codeSize = 17;
  m.modifiers = 0x9;
  m.flags = protocol::kReplayed;
  m.name = "leaf";
  m.signature = "(I)I";
  StreamBuilder b;
  b.method(m, {{0, 10}, {4, 11}, {9, 12}});
  protocol::MethodInfo d;
  ASSERT_TRUE(protocol::decode(b.lastPayload(), d));
  EXPECT_EQ(d.methodId, m.methodId);
  EXPECT_EQ(d.classId, 5u);
  EXPECT_EQ(d.methodPtr, m.methodPtr);
  EXPECT_EQ(d.codeStart, m.codeStart);
  EXPECT_EQ(d.codeSize, 17u);
  EXPECT_EQ(d.modifiers, 0x9u);
  EXPECT_EQ(d.flags, protocol::kReplayed);
  EXPECT_EQ(d.name, "leaf");
  EXPECT_EQ(d.signature, "(I)I");
  ASSERT_EQ(d.lineCount, 3u);
  EXPECT_EQ(d.line(1).startBci, 4u);
  EXPECT_EQ(d.line(2).line, 12u);
  expectEveryTruncationRejected<protocol::MethodInfo>(b.lastPayload());
}

TEST(JvmProtocol, CompiledMethodRoundTrip) {
  protocol::CompiledMethodLoad c;
  c.time = 99;
  c.methodId = 0x1000;
  c.codeStart = 0x7f00aa000000;
  c.codeSize = 512;
  c.flags = protocol::kCompiledReplayed;
  c.blob = {0x7f00a9ffff00, 6, 20, 77, 4};
  StreamBuilder b;
  b.compiled(c, {0x1000, 0x2000, 0x3000}, {{16, {{1, 3}, {0, 8}}}, {40, {{2, 0}, {1, 5}, {0, 9}}}, {64, {}}});
  protocol::CompiledMethodLoad d;
  ASSERT_TRUE(protocol::decode(b.lastPayload(), d));
  EXPECT_EQ(d.codeStart, c.codeStart);
  EXPECT_EQ(d.codeSize, 512u);
  EXPECT_EQ(d.blob.frameSizeWords, 6);
  EXPECT_EQ(d.blob.compileId, 77);
  EXPECT_EQ(d.blob.compLevel, 4);
  ASSERT_EQ(d.methodCount, 3);
  EXPECT_EQ(d.methodIdAt(2), 0x3000u);
  ASSERT_EQ(d.pcCount, 3u);
  protocol::InlinePcCursor cursor(d);
  uint32_t offset = 0;
  uint16_t frames = 0;
  ASSERT_TRUE(cursor.next(offset, frames));
  EXPECT_EQ(offset, 16u);
  ASSERT_EQ(frames, 2);
  EXPECT_EQ(cursor.frame(0).methodIndex, 1);
  EXPECT_EQ(cursor.frame(1).bci, 8);
  ASSERT_TRUE(cursor.next(offset, frames));
  EXPECT_EQ(offset, 40u);
  EXPECT_EQ(frames, 3);
  EXPECT_EQ(cursor.frame(0).methodIndex, 2);
  ASSERT_TRUE(cursor.next(offset, frames));
  EXPECT_EQ(frames, 0);
  EXPECT_FALSE(cursor.next(offset, frames));
  expectEveryTruncationRejected<protocol::CompiledMethodLoad>(b.lastPayload());
}

TEST(JvmProtocol, CompiledMethodWithMethodIndexOutOfRangeIsRejected) {
  StreamBuilder b;
  b.compiled(protocol::CompiledMethodLoad{}, {0x1000}, {{0, {{1, 0}}}});
  protocol::CompiledMethodLoad d;
  EXPECT_FALSE(protocol::decode(b.lastPayload(), d));
}

TEST(JvmProtocol, HugeCountsCannotOverflowTheBoundsCheck) {
  std::vector<uint8_t> payload(8 * 5 + 24 + 2 + 4, 0);
  payload[8 * 3 + 4 + 4 + 24] = 0xff;  // methodCount = 0xffff, with only a few bytes behind it
  payload[8 * 3 + 4 + 4 + 24 + 1] = 0xff;
  protocol::CompiledMethodLoad d;
  EXPECT_FALSE(protocol::decode(payload, d));
  std::vector<uint8_t> method(64, 0xff);  // lineCount 0xffffffff
  protocol::MethodInfo m;
  EXPECT_FALSE(protocol::decode(method, m));
}

TEST(JvmProtocol, SmallRecordsRoundTrip) {
  StreamBuilder b;
  b.record(RecordType::kThreadStart, protocol::ThreadStart{5, 1234, protocol::kThreadDaemon, 77, "worker"});
  protocol::ThreadStart t;
  ASSERT_TRUE(protocol::decode(b.lastPayload(), t));
  EXPECT_EQ(t.tid, 1234u);
  EXPECT_EQ(t.javaThreadId, 77u);
  EXPECT_EQ(t.name, "worker");
  EXPECT_EQ(t.flags, protocol::kThreadDaemon);
  expectEveryTruncationRejected<protocol::ThreadStart>(b.lastPayload());

  b.record(RecordType::kDynamicCode, protocol::DynamicCode{1, 0x1000, 64, 0, {0x900, 0, -1, -1, -1}, "Interpreter"});
  protocol::DynamicCode dc;
  ASSERT_TRUE(protocol::decode(b.lastPayload(), dc));
  EXPECT_EQ(dc.name, "Interpreter");
  EXPECT_EQ(dc.blob.blobAddress, 0x900u);
  expectEveryTruncationRejected<protocol::DynamicCode>(b.lastPayload());

  b.record(RecordType::kVmStructField, protocol::VmStructField{"Method", "_constMethod", "ConstMethod*", 0, 8, 0});
  protocol::VmStructField f;
  ASSERT_TRUE(protocol::decode(b.lastPayload(), f));
  EXPECT_EQ(f.typeString, "ConstMethod*");
  EXPECT_EQ(f.offset, 8u);
  expectEveryTruncationRejected<protocol::VmStructField>(b.lastPayload());

  b.record(RecordType::kReplayEnd, protocol::ReplayEnd{1, 2, 3, 4, 5, 6, 7});
  protocol::ReplayEnd e;
  ASSERT_TRUE(protocol::decode(b.lastPayload(), e));
  EXPECT_EQ(e.methods, 4u);
  EXPECT_EQ(e.threads, 7u);
  expectEveryTruncationRejected<protocol::ReplayEnd>(b.lastPayload());
}

TEST(JvmProtocol, LongStringsAreCutNotOverflowed) {
  std::string longName(70000, 'x');
  StreamBuilder b;
  b.record(RecordType::kThreadRename, protocol::ThreadRename{1, 2, 3, longName});
  protocol::ThreadRename r;
  ASSERT_TRUE(protocol::decode(b.lastPayload(), r));
  EXPECT_EQ(r.name.size(), 0xffffu);
}

TEST(JvmAgentOptions, ParsesWhatTheLoaderWrites) {
  agent::AgentOptions o;
  const char* error = nullptr;
  ASSERT_TRUE(agent::parseAgentOptions(
      "channel:jfrbpf-0123456789abcdef0123456789abcdef,token:000102030405060708090a0b0c0d0e0f,protocol:2", o, error))
      << error;
  EXPECT_EQ(std::string(o.channel.data(), o.channelLength), "jfrbpf-0123456789abcdef0123456789abcdef");
  EXPECT_EQ(o.token[15], 0x0f);
  EXPECT_EQ(o.protocolVersion, protocol::kVersion);
}

TEST(JvmAgentOptions, RejectsBadInput) {
  agent::AgentOptions o;
  const char* error = nullptr;
  EXPECT_FALSE(agent::parseAgentOptions(nullptr, o, error));
  EXPECT_FALSE(agent::parseAgentOptions("", o, error));
  EXPECT_FALSE(agent::parseAgentOptions("channel=abc", o, error));
  EXPECT_FALSE(agent::parseAgentOptions("channel=abc,token=00", o, error));
  EXPECT_FALSE(agent::parseAgentOptions("channel=a b,token=000102030405060708090a0b0c0d0e0f", o, error));
  EXPECT_FALSE(agent::parseAgentOptions("channel=abc,token=000102030405060708090a0b0c0d0e0f,protocol=1", o, error))
      << "an older loader: its trace probe would not know the sessions of the stub's calls";
  EXPECT_FALSE(agent::parseAgentOptions("channel=abc,token=zz0102030405060708090a0b0c0d0e0f", o, error));
  EXPECT_FALSE(agent::parseAgentOptions(("channel=" + std::string(200, 'a') + ",token=000102030405060708090a0b0c0d0e0f").c_str(), o, error));
  EXPECT_FALSE(agent::parseAgentOptions("noequals", o, error));
  EXPECT_TRUE(agent::parseAgentOptions("future=1,channel=abc,token=000102030405060708090a0b0c0d0e0f", o, error))
      << "'=' works as well as ':'";
}

}  // namespace
}  // namespace jfrbpf::jvm::test
