#include "userspace/cli/arguments.h"

#include <gtest/gtest.h>

#include "userspace/base/error.h"

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

}  // namespace
}  // namespace jfrbpf::cli
