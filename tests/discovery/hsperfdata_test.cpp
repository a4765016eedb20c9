// The hsperfdata parser on built files in both byte orders, and on malformed and truncated ones (a real
// JVM's file is parsed in discovery_jvm_test).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "tests/discovery/perf_data_builder.h"
#include "userspace/discovery/hsperfdata.h"

namespace jfrbpf::discovery {
namespace {

using discovery_test::PerfDataBuilder;

std::vector<uint8_t> typicalFile(bool bigEndian) {
  return PerfDataBuilder(bigEndian)
      .number("sun.rt.createVmBeginTime", 1795300680836)
      .text("sun.rt.javaCommand", "com.example.Main --port 8080", 256)
      .text("java.property.java.version", "17.0.15")
      .text("java.rt.vmArgs", "-Xmx16m -XX:+DisableAttachMechanism")
      .number("sun.os.hrt.frequency", 1000000000)
      .text("sun.rt.jvmCapabilities", "0100000000000000")
      .build();
}

void putInt32(std::vector<uint8_t>& bytes, size_t offset, int32_t value) {
  for (size_t i = 0; i < 4; ++i) bytes[offset + i] = static_cast<uint8_t>(static_cast<uint32_t>(value) >> (8 * i));
}

TEST(DiscoveryHsPerfData, ParsesLittleAndBigEndianFiles) {
  for (bool bigEndian : {false, true}) {
    SCOPED_TRACE(bigEndian ? "big endian" : "little endian");
    auto parsed = parsePerfData(typicalFile(bigEndian));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->majorVersion, 2);
    EXPECT_TRUE(parsed->accessible);
    EXPECT_TRUE(parsed->complete);
    ASSERT_NE(parsed->string("sun.rt.javaCommand"), nullptr);
    EXPECT_EQ(*parsed->string("sun.rt.javaCommand"), "com.example.Main --port 8080");
    EXPECT_EQ(*parsed->string("java.property.java.version"), "17.0.15");
    EXPECT_EQ(*parsed->string("java.rt.vmArgs"), "-Xmx16m -XX:+DisableAttachMechanism");
    EXPECT_EQ(parsed->number("sun.rt.createVmBeginTime"), 1795300680836);
    EXPECT_EQ(parsed->number("sun.os.hrt.frequency"), 1000000000);
    EXPECT_EQ(parsed->string("no.such.counter"), nullptr);
    EXPECT_EQ(parsed->number("sun.rt.javaCommand"), std::nullopt);
  }
}

TEST(DiscoveryHsPerfData, ReportsAVmStillInitialising) {
  auto parsed = parsePerfData(PerfDataBuilder().accessible(false).text("sun.rt.javaCommand", "Main").build());
  ASSERT_TRUE(parsed.has_value());
  EXPECT_FALSE(parsed->accessible);
  EXPECT_EQ(*parsed->string("sun.rt.javaCommand"), "Main");
}

TEST(DiscoveryHsPerfData, RejectsWhatIsNotAnHsPerfDataFile) {
  std::string why;
  EXPECT_FALSE(parsePerfData({}, &why).has_value());
  EXPECT_EQ(why, "shorter than the hsperfdata prologue");

  std::vector<uint8_t> file = typicalFile(false);
  file[0] = 0x7f;
  EXPECT_FALSE(parsePerfData(file, &why).has_value());
  EXPECT_EQ(why, "no hsperfdata magic");

  file = typicalFile(false);
  file[4] = 7;
  EXPECT_FALSE(parsePerfData(file, &why).has_value());
  EXPECT_EQ(why, "unknown byte order");

  file = typicalFile(false);
  file[5] = 1;
  EXPECT_FALSE(parsePerfData(file, &why).has_value());
  EXPECT_EQ(why, "unsupported hsperfdata format version");

  file = typicalFile(false);
  putInt32(file, 24, 4);  // entries inside the prologue
  EXPECT_FALSE(parsePerfData(file, &why).has_value());
  file = typicalFile(false);
  putInt32(file, 28, -1);
  EXPECT_FALSE(parsePerfData(file, &why).has_value());
  EXPECT_EQ(why, "corrupt hsperfdata prologue");
}

TEST(DiscoveryHsPerfData, MalformedEntryEndsTheParseKeepingEarlierOnes) {
  std::vector<uint8_t> file = PerfDataBuilder().text("first", "one").text("second", "two").build();
  const size_t secondEntry = 32 + (static_cast<size_t>(file[32]) | static_cast<size_t>(file[33]) << 8);
  for (int32_t badLength : {0, 19, -20, 0x7fffffff}) {
    SCOPED_TRACE(badLength);
    std::vector<uint8_t> bad = file;
    putInt32(bad, secondEntry, badLength);
    auto parsed = parsePerfData(bad);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_FALSE(parsed->complete);
    EXPECT_EQ(*parsed->string("first"), "one");
    EXPECT_EQ(parsed->string("second"), nullptr);
  }
  std::vector<uint8_t> badName = file;
  putInt32(badName, secondEntry + 4, 100000);  // name outside the entry
  auto parsed = parsePerfData(badName);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_FALSE(parsed->complete);
  EXPECT_EQ(parsed->strings.size(), 1u);
}

TEST(DiscoveryHsPerfData, DataOutsideItsEntryIsSkipped) {
  std::vector<uint8_t> file = PerfDataBuilder().text("first", "one").number("second", 5).text("third", "three").build();
  const size_t second = 32 + file[32];
  std::vector<uint8_t> bad = file;
  putInt32(bad, second + 16, 1 << 20);  // data offset far outside
  auto parsed = parsePerfData(bad);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->number("second"), std::nullopt);
  EXPECT_EQ(*parsed->string("third"), "three");

  bad = file;
  putInt32(bad, 32 + 8, 1 << 30);  // vector length past the entry
  parsed = parsePerfData(bad);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->string("first"), nullptr);
  EXPECT_EQ(parsed->number("second"), 5);
}

TEST(DiscoveryHsPerfData, UnterminatedTextStopsAtTheVector) {
  std::vector<uint8_t> file = PerfDataBuilder().text("name", "abc", 3).build();  // no room for the NUL
  auto parsed = parsePerfData(file);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed->string("name"), "abc");
}

TEST(DiscoveryHsPerfData, EntryCountLargerThanTheFileIsIncomplete) {
  std::vector<uint8_t> file = typicalFile(false);
  putInt32(file, 28, 0x7fffffff);
  auto parsed = parsePerfData(file);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_FALSE(parsed->complete);
  EXPECT_EQ(*parsed->string("java.property.java.version"), "17.0.15");
}

TEST(DiscoveryHsPerfData, EveryTruncationIsSafeAndMarkedIncomplete) {
  for (bool bigEndian : {false, true}) {
    std::vector<uint8_t> file = typicalFile(bigEndian);
    for (size_t size = 0; size < file.size(); ++size) {
      auto parsed = parsePerfData(std::span(file).first(size));
      if (parsed) {
        EXPECT_FALSE(parsed->complete) << "prefix of " << size << " bytes";
      }
    }
  }
}

TEST(DiscoveryHsPerfData, RandomCorruptionNeverCrashes) {
  std::mt19937 random(20261121);
  const std::vector<uint8_t> original = typicalFile(false);
  size_t parsedCount = 0;
  for (int round = 0; round < 5000; ++round) {
    std::vector<uint8_t> file = original;
    const int flips = 1 + static_cast<int>(random() % 8);
    for (int i = 0; i < flips; ++i) file[random() % file.size()] = static_cast<uint8_t>(random());
    if (auto parsed = parsePerfData(file)) {
      ++parsedCount;
      for (const auto& [name, value] : parsed->strings) EXPECT_LE(value.size(), file.size());
    }
  }
  EXPECT_GT(parsedCount, 0u);
}

}  // namespace
}  // namespace jfrbpf::discovery
