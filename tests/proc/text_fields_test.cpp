// The field helpers every /proc parser is built on.
#include "userspace/proc/text_fields.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace jfrbpf::proc {
namespace {

TEST(ProcTextFields, NumbersAndFields) {
  EXPECT_EQ(parseNumber<int>("42"), 42);
  EXPECT_EQ(parseNumber<int>("42x"), std::nullopt);
  EXPECT_EQ(parseNumber<int>(""), std::nullopt);
  EXPECT_EQ(parseNumber<unsigned>("-1"), std::nullopt);
  EXPECT_EQ(parseNumber<uint64_t>("7f10067c9000", 16), 0x7f10067c9000u);
  EXPECT_EQ(splitFields("  a \t b  c ", 2), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_TRUE(isLowerHex("09af"));
  EXPECT_FALSE(isLowerHex("09aF"));
  EXPECT_FALSE(isLowerHex(""));
}

}  // namespace
}  // namespace jfrbpf::proc
