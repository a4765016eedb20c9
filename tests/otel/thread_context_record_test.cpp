// Decoding a thread's context record (OTEP 4947) as the sampler copies it, and rendering its attributes: the
// bytes are the target's, so every length is checked and every value escaped.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "userspace/otel/thread_context_record.h"

namespace jfrbpf::otel {
namespace {

// A record: trace id bytes 01..10, span id bytes a1..a8, valid, flags, then `attrs` as given.
std::vector<uint8_t> record(const std::vector<uint8_t>& attrs, uint8_t valid = 1, uint8_t flags = 1) {
  std::vector<uint8_t> bytes(kThreadContextHeaderBytes);
  for (int i = 0; i < 16; ++i) bytes[i] = static_cast<uint8_t>(i + 1);
  for (int i = 0; i < 8; ++i) bytes[16 + i] = static_cast<uint8_t>(0xa1 + i);
  bytes[24] = valid;
  bytes[25] = flags;
  const auto size = static_cast<uint16_t>(attrs.size());
  std::memcpy(&bytes[26], &size, sizeof size);
  bytes.insert(bytes.end(), attrs.begin(), attrs.end());
  return bytes;
}

std::vector<uint8_t> entry(uint8_t key, const std::string& value) {
  std::vector<uint8_t> bytes = {key, static_cast<uint8_t>(value.size())};
  bytes.insert(bytes.end(), value.begin(), value.end());
  return bytes;
}

std::vector<uint8_t> concat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

std::string rendered(const std::vector<uint8_t>& bytes, const std::vector<std::string>& names) {
  const auto decoded = decodeThreadContextRecord(bytes);
  if (!decoded) return "<none>";
  std::string out;
  renderAttributes(*decoded, names, out);
  return out;
}

TEST(ThreadContextRecord, IdsAreTheW3CBytesAsBigEndianIntegers) {
  const auto decoded = decodeThreadContextRecord(record({}));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->traceIdHi, 0x0102030405060708u);
  EXPECT_EQ(decoded->traceIdLo, 0x090a0b0c0d0e0f10u);
  EXPECT_EQ(decoded->spanId, 0xa1a2a3a4a5a6a7a8u);
  EXPECT_EQ(decoded->traceFlags, 1);
  EXPECT_EQ(traceIdHex(decoded->traceIdHi, decoded->traceIdLo), "0102030405060708090a0b0c0d0e0f10");
  EXPECT_EQ(spanIdHex(decoded->spanId), "a1a2a3a4a5a6a7a8");
}

TEST(ThreadContextRecord, OnlyValidOneIsAContext) {
  EXPECT_FALSE(decodeThreadContextRecord(record({}, 0)).has_value());
  EXPECT_FALSE(decodeThreadContextRecord(record({}, 2)).has_value());
}

TEST(ThreadContextRecord, AttributesAreNamedByTheKeyMap) {
  const auto bytes = record(concat({entry(0, "/checkout"), entry(1, "GET")}));
  EXPECT_EQ(rendered(bytes, {"http.route", "http.method"}), "http.route=/checkout, http.method=GET");
  EXPECT_EQ(rendered(bytes, {"http.route"}), "http.route=/checkout, #1=GET") << "an index the map lacks";
}

TEST(ThreadContextRecord, TheLastOfARepeatedKeyWins) {
  const auto bytes = record(concat({entry(0, "/a"), entry(1, "GET"), entry(0, "/b")}));
  EXPECT_EQ(rendered(bytes, {"route", "method"}), "method=GET, route=/b");
}

TEST(ThreadContextRecord, AnEntryCutShortEndsTheAttributes) {
  auto attrs = concat({entry(0, "/a"), entry(1, "toolong")});
  attrs.resize(attrs.size() - 3);
  EXPECT_EQ(rendered(record(attrs), {"route", "method"}), "route=/a");
  EXPECT_EQ(rendered(record({7}), {"route"}), "") << "a lone key byte";
}

TEST(ThreadContextRecord, BytesShorterThanTheSizeSaidAreNoRecord) {
  auto bytes = record(entry(0, "/checkout"));
  bytes.resize(bytes.size() - 1);
  EXPECT_FALSE(decodeThreadContextRecord(bytes).has_value());
  EXPECT_FALSE(decodeThreadContextRecord(std::vector<uint8_t>(27, 1)).has_value());
}

TEST(ThreadContextRecord, ValuesReachNoTerminalRawAndSplitBackUnambiguously) {
  const auto bytes = record(concat({entry(0, "a,b\\c"), entry(1, "\x1b[2J"), entry(2, "\xff\xfe"), entry(3, "caf\xc3\xa9")}));
  EXPECT_EQ(rendered(bytes, {"k0", "k1", "k2", "k3"}), "k0=a\\,b\\\\c, k1=\\x1b[2J, k2=\\xff\\xfe, k3=caf\xc3\xa9");
}

}  // namespace
}  // namespace jfrbpf::otel
