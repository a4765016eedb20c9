#include "userspace/unwind/byte_reader.h"

#include <gtest/gtest.h>

#include <vector>

namespace jfrbpf::unwind {
namespace {

TEST(UnwindByteReader, ReadsLittleEndianIntegersAndStopsAtTheEnd) {
  std::vector<uint8_t> bytes = {0x01, 0x02, 0x03, 0x04, 0x05};
  ByteReader reader(bytes);
  EXPECT_EQ(reader.u32(), 0x04030201u);
  EXPECT_TRUE(reader.ok());
  EXPECT_EQ(reader.u16(), 0u);  // only one byte left
  EXPECT_FALSE(reader.ok());
  EXPECT_EQ(reader.remaining(), 0u);
}

TEST(UnwindByteReader, DecodesLeb128) {
  std::vector<uint8_t> bytes = {0xe5, 0x8e, 0x26,          // 624485
                                0x7f,                      // -1
                                0x80, 0x7f,                // -128
                                0x3f,                      // 63
                                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};  // UINT64_MAX
  ByteReader reader(bytes);
  EXPECT_EQ(reader.uleb128(), 624485u);
  EXPECT_EQ(reader.sleb128(), -1);
  EXPECT_EQ(reader.sleb128(), -128);
  EXPECT_EQ(reader.sleb128(), 63);
  EXPECT_EQ(reader.uleb128(), UINT64_MAX);
  EXPECT_TRUE(reader.ok());
}

TEST(UnwindByteReader, RejectsOverlongAndTruncatedLeb128) {
  std::vector<uint8_t> overflow = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  ByteReader tooBig(overflow);
  tooBig.uleb128();
  EXPECT_FALSE(tooBig.ok());

  std::vector<uint8_t> endless(20, 0x80);
  ByteReader tooLong(endless);
  tooLong.uleb128();
  EXPECT_FALSE(tooLong.ok());

  std::vector<uint8_t> truncated = {0x80, 0x80};
  ByteReader cut(truncated);
  cut.sleb128();
  EXPECT_FALSE(cut.ok());
}

TEST(UnwindByteReader, StringsNeedTheirTerminator) {
  std::vector<uint8_t> bytes = {'z', 'R', 0, 'a', 'b'};
  ByteReader reader(bytes);
  auto first = reader.cString();
  EXPECT_EQ(std::string(first.begin(), first.end()), "zR");
  reader.cString();
  EXPECT_FALSE(reader.ok());
}

TEST(UnwindByteReader, TakeAndSeekAreBounded) {
  std::vector<uint8_t> bytes(8, 0);
  ByteReader reader(bytes);
  EXPECT_EQ(reader.take(8).size(), 8u);
  EXPECT_TRUE(reader.ok());
  reader.seek(9);
  EXPECT_FALSE(reader.ok());
  ByteReader other(bytes, 4);
  other.take(UINT64_MAX);
  EXPECT_FALSE(other.ok());
}

}  // namespace
}  // namespace jfrbpf::unwind
