// /proc/PID/task/TID/schedstat: three numbers, and this thread's own, which grows while it runs.
#include "userspace/proc/schedstat.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>

namespace jfrbpf::proc {
namespace {

TEST(ProcSchedstat, ParsesThreeNumbers) {
  auto stats = parseSchedstat("123456789 2000 17\n");
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->onCpuNs, 123456789u);
  EXPECT_EQ(stats->runQueueWaitNs, 2000u);
  EXPECT_EQ(stats->timeslices, 17u);
  EXPECT_TRUE(parseSchedstat("1 2 3 4").has_value());
  EXPECT_FALSE(parseSchedstat("").has_value());
  EXPECT_FALSE(parseSchedstat("1 2").has_value());
  EXPECT_FALSE(parseSchedstat("1 -2 3").has_value());
  EXPECT_FALSE(parseSchedstat("1 2 x").has_value());
  EXPECT_FALSE(parseSchedstat("99999999999999999999 0 0").has_value());
}

TEST(ProcSchedstat, OwnThreadAccumulatesCpuTime) {
  auto before = readSchedstat(getpid(), gettid());
  ASSERT_TRUE(before.has_value());
  auto spinUntil = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  while (std::chrono::steady_clock::now() < spinUntil) {
  }
  auto after = readSchedstat(getpid(), gettid());
  ASSERT_TRUE(after.has_value());
  EXPECT_GT(after->onCpuNs, before->onCpuNs);
  EXPECT_GE(after->timeslices, before->timeslices);
  EXPECT_FALSE(readSchedstat(0x3ffffff, 0x3ffffff).has_value());
}

}  // namespace
}  // namespace jfrbpf::proc
