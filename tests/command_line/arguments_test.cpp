#include "userspace/command_line/arguments.h"

#include <gtest/gtest.h>

#include "base/error.h"

namespace jfrbpf::cli {
namespace {

TEST(Arguments, AcceptsEverySpellingOfAnOption) {
  Arguments args({"-d", "10s", "-d20s", "--duration", "30s", "--duration=40s"});
  std::string value;
  for (const char* expected : {"10s", "20s", "30s", "40s"}) {
    ASSERT_TRUE(args.option("-d", "--duration", value));
    EXPECT_EQ(value, expected);
  }
  EXPECT_TRUE(args.done());
}

TEST(Arguments, EverythingAfterDoubleDashIsTheCommand) {
  Arguments args({"-o", "x.jfr", "--", "java", "-d", "-jar", "app.jar"});
  std::string value;
  ASSERT_TRUE(args.option("-o", "--output", value));
  ASSERT_TRUE(args.flag("", "--"));
  EXPECT_EQ(args.rest(), (std::vector<std::string>{"java", "-d", "-jar", "app.jar"}));
}

TEST(Arguments, MissingValueIsAUsageError) {
  Arguments args({"--duration"});
  std::string value;
  try {
    args.option("-d", "--duration", value);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("--duration needs a value"), std::string::npos);
  }
}

TEST(Arguments, LongOptionPrefixesDoNotMatch) {
  Arguments args({"--durationx=1"});
  std::string value;
  EXPECT_FALSE(args.option("-d", "--duration", value));
}

TEST(Arguments, OptionalValuesAreAttachedWithEquals) {
  Arguments args({"--lock", "--lock=1ms", "--lockx"});
  std::string value = "stale";
  ASSERT_TRUE(args.optionalValue("--lock", "its threshold", value));
  EXPECT_EQ(value, "");
  ASSERT_TRUE(args.optionalValue("--lock", "its threshold", value));
  EXPECT_EQ(value, "1ms");
  EXPECT_FALSE(args.optionalValue("--lock", "its threshold", value));
}

// "--lock 1ms" is "--lock" and a stray "1ms": the error points at the '=' it lacks, not at an unknown option.
TEST(Arguments, ADetachedOptionalValueIsPointedAtItsEquals) {
  for (const char* option : {"--alloc", "--lock", "--off-cpu"}) {
    Arguments args({option, "1ms"});
    std::string value;
    ASSERT_TRUE(args.optionalValue(option, "its value", value));
    try {
      args.rejectCurrent("record");
      FAIL();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_NE(std::string(e.what()).find(std::string(option) + "=1ms"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("unknown option"), std::string::npos) << e.what();
    }
  }
  // An unknown option after one is still an unknown option.
  Arguments args({"--lock", "--bogus"});
  std::string value;
  ASSERT_TRUE(args.optionalValue("--lock", "its threshold", value));
  try {
    args.rejectCurrent("record");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown option '--bogus'"), std::string::npos) << e.what();
  }
}

TEST(Arguments, AnEmptyAttachedValueIsAUsageError) {
  Arguments args({"--lock="});
  std::string value;
  EXPECT_THROW(args.optionalValue("--lock", "its threshold", value), Error);
}

}  // namespace
}  // namespace jfrbpf::cli
