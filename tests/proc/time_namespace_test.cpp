// /proc/PID/timens_offsets, against a fake /proc.
#include "userspace/proc/time_namespace.h"

#include <gtest/gtest.h>

#include "tests/support/scratch_tree.h"

namespace jfrbpf::proc {
namespace {

using ProcFakeRoot = jfrbpf::test::ScratchTree;

TEST_F(ProcFakeRoot, MonotonicOffsetFromTimensOffsets) {
  write("42/timens_offsets", "monotonic           -5         250\nboottime             7          0\n");
  EXPECT_EQ(monotonicOffsetNs(42, root_), -5 * 1000000000ll + 250);
  write("43/timens_offsets", "1 3 0\n");
  EXPECT_EQ(monotonicOffsetNs(43, root_), 3000000000ll);
  write("44/timens_offsets", "monotonic lots of garbage\n");
  EXPECT_EQ(monotonicOffsetNs(44, root_), 0);
  EXPECT_EQ(monotonicOffsetNs(45, root_), 0) << "no file: no time namespace";
}

TEST(ProcTimeNamespace, OffsetsOutOfBoundsAreIgnored) {
  EXPECT_EQ(parseMonotonicOffsetNs("monotonic 1 1000000000\n"), std::nullopt);
  EXPECT_EQ(parseMonotonicOffsetNs("monotonic 1 -1\n"), std::nullopt);
  EXPECT_EQ(parseMonotonicOffsetNs("monotonic 8589934592 0\n"), std::nullopt);
  EXPECT_EQ(parseMonotonicOffsetNs("boottime 1 0\nmonotonic 2 5\n"), 2000000005);
}

}  // namespace
}  // namespace jfrbpf::proc
