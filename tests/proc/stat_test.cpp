// The one /proc/PID/stat parser: a comm with spaces and parentheses, kernel threads, and text that is no
// stat line.
#include "userspace/proc/stat.h"

#include <gtest/gtest.h>

#include <string>

namespace jfrbpf::proc {
namespace {

TEST(ProcStat, ReadsFieldsAfterACommWithSpacesAndParentheses) {
  std::string text = "4242 (my (odd) java) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 30 0 123456 0 0 0 "
                     "94000000 95000000 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 96000000 97000000 98000000 140000000 "
                     "140000100 140000200 140000300 0\n";
  auto stat = parseStat(text);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->comm, "my (odd) java");
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->userTicks, 5u);
  EXPECT_EQ(stat->systemTicks, 6u);
  EXPECT_EQ(stat->startTicks, 123456u);
  EXPECT_EQ(stat->startCode, 94000000u);
  EXPECT_EQ(stat->argStart, 140000000u);
  EXPECT_FALSE(stat->kernelThread());
  auto kernel = parseStat("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0");
  ASSERT_TRUE(kernel.has_value());
  EXPECT_TRUE(kernel->kernelThread());
  EXPECT_EQ(kernel->argStart, 0u);
  EXPECT_FALSE(parseStat("4242 java S 1").has_value());
  EXPECT_FALSE(parseStat("4242 (java) S 1 2 3").has_value());
  EXPECT_FALSE(parseStat(")(").has_value());
}

}  // namespace
}  // namespace jfrbpf::proc
