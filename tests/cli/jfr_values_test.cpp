#include "userspace/cli/jfr_values.h"

#include <gtest/gtest.h>

#include <limits>

#include "base/error.h"

namespace jfrbpf::cli {
namespace {

TEST(JfrValues, DurationsInJfrSyntax) {
  EXPECT_EQ(parseDuration("10ms", "-d"), 10'000'000);
  EXPECT_EQ(parseDuration("1 s", "-d"), 1'000'000'000);
  EXPECT_EQ(parseDuration(" 2m ", "-d"), 120'000'000'000);
  EXPECT_EQ(parseDuration("1h", "-d"), 3'600'000'000'000);
  EXPECT_EQ(parseDuration("1d", "-d"), 86'400'000'000'000);
  EXPECT_EQ(parseDuration("250us", "-d"), 250'000);
  EXPECT_EQ(parseDuration("20ns", "-d"), 20);
  EXPECT_EQ(parseDuration("1.5s", "-d"), 1'500'000'000);
  EXPECT_EQ(parseDuration("infinity", "-d", true), std::numeric_limits<int64_t>::max());
}

TEST(JfrValues, SizesInJfrSyntax) {
  EXPECT_EQ(parseSize("1048576", "--max-size"), 1048576u);
  EXPECT_EQ(parseSize("512k", "--max-size"), 512u << 10);
  EXPECT_EQ(parseSize("100m", "--max-size"), 100u << 20);
  EXPECT_EQ(parseSize("100MB", "--max-size"), 100u << 20);
  EXPECT_EQ(parseSize("2g", "--max-size"), 2ull << 30);
  EXPECT_EQ(parseSize("1.5 G", "--max-size"), 3ull << 29);
  for (const char* bad : {"", "m", "0", "-1m", "10 parsecs", "1t", "99999999999g"}) {
    try {
      parseSize(bad, "--max-size");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_NE(std::string(e.what()).find("--max-size"), std::string::npos);
    }
  }
}

TEST(JfrValues, BadDurationsNameTheOptionAndTheSyntax) {
  for (const char* bad : {"", "10", "ms", "10 parsecs", "-5s", "1e3s", "infinity"}) {
    try {
      parseDuration(bad, "--duration");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_NE(std::string(e.what()).find("--duration"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("e.g. 10ms"), std::string::npos) << e.what();
    }
  }
}

TEST(JfrValues, RatesInJep509Syntax) {
  EXPECT_DOUBLE_EQ(parseRate("500/s", "--rate"), 500.0);
  EXPECT_DOUBLE_EQ(parseRate("10/ms", "--rate"), 10'000.0);
  EXPECT_DOUBLE_EQ(parseRate("60 / m", "--rate"), 1.0);
  EXPECT_THROW(parseRate("500", "--rate"), Error);
  EXPECT_THROW(parseRate("0/s", "--rate"), Error);
  EXPECT_THROW(parseRate("5/fortnight", "--rate"), Error);
}

}  // namespace
}  // namespace jfrbpf::cli
