// The stream parser: any chunking yields the same records; hostile framing ends the stream.
#include <gtest/gtest.h>

#include <random>

#include "tests/jvm/stream_builder.h"
#include "userspace/jvm/record_stream_parser.h"

namespace jfrbpf::jvm::test {
namespace {

using protocol::RecordType;

struct Seen {
  RecordType type;
  std::vector<uint8_t> payload;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> parseInChunks(const std::vector<uint8_t>& stream, const std::vector<size_t>& cuts, bool& ok) {
  std::vector<Seen> seen;
  RecordStreamParser parser;
  RecordStreamParser::Sink sink = [&](RecordType t, std::span<const uint8_t> p) {
    seen.push_back({t, {p.begin(), p.end()}});
    return true;
  };
  size_t at = 0;
  ok = true;
  for (size_t cut : cuts) {
    ok = ok && parser.feed(std::span<const uint8_t>(stream).subspan(at, cut - at), sink);
    at = cut;
  }
  ok = ok && parser.feed(std::span<const uint8_t>(stream).subspan(at), sink);
  EXPECT_EQ(parser.pendingBytes(), 0u);
  return seen;
}

std::vector<uint8_t> sampleStream() {
  StreamBuilder b;
  b.preamble().hello();
  b.record(RecordType::kThreadStart, protocol::ThreadStart{1, 2, 0, 3, "t"});
  b.raw(RecordType::kGoodbye, {});
  b.record(RecordType::kVmConstant, protocol::VmConstant{"x", 1, -5});
  return b.bytes();
}

TEST(JvmStreamParser, AnyChunkingGivesTheSameRecords) {
  std::vector<uint8_t> stream = sampleStream();
  bool ok = false;
  std::vector<Seen> whole = parseInChunks(stream, {}, ok);
  ASSERT_TRUE(ok);
  ASSERT_EQ(whole.size(), 4u);
  EXPECT_EQ(whole[0].type, RecordType::kHello);
  EXPECT_EQ(whole[2].type, RecordType::kGoodbye);
  EXPECT_TRUE(whole[2].payload.empty());

  std::vector<size_t> everyByte;
  for (size_t i = 1; i < stream.size(); ++i) everyByte.push_back(i);
  EXPECT_EQ(parseInChunks(stream, everyByte, ok), whole);
  EXPECT_TRUE(ok);

  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<size_t> cuts;
    for (size_t at = 0;;) {
      at += 1 + random() % 40;
      if (at >= stream.size()) break;
      cuts.push_back(at);
    }
    EXPECT_EQ(parseInChunks(stream, cuts, ok), whole);
    EXPECT_TRUE(ok);
  }
}

TEST(JvmStreamParser, RejectsWrongMagicAndVersion) {
  std::vector<uint8_t> stream = sampleStream();
  stream[0] ^= 0xff;
  RecordStreamParser parser;
  int records = 0;
  RecordStreamParser::Sink sink = [&](RecordType, std::span<const uint8_t>) { return ++records, true; };
  EXPECT_FALSE(parser.feed(stream, sink));
  EXPECT_NE(parser.error().find("magic"), std::string::npos);
  EXPECT_EQ(records, 0);

  stream = sampleStream();
  stream[4] = 9;  // version 9
  RecordStreamParser other;
  EXPECT_FALSE(other.feed(stream, sink));
  EXPECT_NE(other.error().find("protocol 9"), std::string::npos);
  EXPECT_FALSE(other.feed(sampleStream(), sink)) << "a failed stream stays failed";
}

TEST(JvmStreamParser, OversizedRecordFailsBeforeBuffering) {
  StreamBuilder b;
  b.preamble();
  std::vector<uint8_t> stream = b.bytes();
  uint32_t huge = 64u << 20;
  stream.insert(stream.end(), reinterpret_cast<uint8_t*>(&huge), reinterpret_cast<uint8_t*>(&huge) + 4);
  stream.push_back(1);
  stream.push_back(0);
  RecordStreamParser parser(1u << 20);
  RecordStreamParser::Sink sink = [](RecordType, std::span<const uint8_t>) { return true; };
  // Header split in two feeds: the check must happen as soon as the length is known.
  EXPECT_TRUE(parser.feed(std::span<const uint8_t>(stream).first(10), sink));
  EXPECT_FALSE(parser.feed(std::span<const uint8_t>(stream).subspan(10), sink));
  EXPECT_NE(parser.error().find("above the limit"), std::string::npos);
  EXPECT_EQ(parser.pendingBytes(), 0u);
}

TEST(JvmStreamParser, RecordTypeZeroAndConsumerStopEndTheStream) {
  StreamBuilder b;
  b.preamble().raw(static_cast<RecordType>(0), {1, 2, 3});
  RecordStreamParser parser;
  RecordStreamParser::Sink accept = [](RecordType, std::span<const uint8_t>) { return true; };
  EXPECT_FALSE(parser.feed(b.bytes(), accept));

  RecordStreamParser stopping;
  RecordStreamParser::Sink refuse = [](RecordType, std::span<const uint8_t>) { return false; };
  EXPECT_FALSE(stopping.feed(sampleStream(), refuse));
  EXPECT_TRUE(stopping.failed());
}

TEST(JvmStreamParser, TruncatedStreamLeavesOnlyTheIncompleteRecordPending) {
  std::vector<uint8_t> stream = sampleStream();
  stream.resize(stream.size() - 3);
  RecordStreamParser parser;
  int records = 0;
  RecordStreamParser::Sink sink = [&](RecordType, std::span<const uint8_t>) { return ++records, true; };
  EXPECT_TRUE(parser.feed(stream, sink));
  EXPECT_EQ(records, 3);
  EXPECT_GT(parser.pendingBytes(), 0u);
  EXPECT_LT(parser.pendingBytes(), 64u);
}

}  // namespace
}  // namespace jfrbpf::jvm::test
