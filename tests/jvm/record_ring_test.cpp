// The agent's bounded record ring: whole records or nothing, counted drops, wrap-around, session reset.
#include <gtest/gtest.h>

#include <numeric>

#include "jvmsupport/agent/record_ring.h"

namespace jfrbpf::jvm::test {
namespace {

std::vector<uint8_t> drain(agent::RecordRing& ring) {
  std::vector<uint8_t> out;
  for (;;) {
    size_t n = 0;
    const uint8_t* data = ring.peek(n);
    if (n == 0) return out;
    out.insert(out.end(), data, data + n);
    ring.consume(n);
  }
}

TEST(JvmRecordRing, DropsWholeRecordsWhenFullAndCountsThem) {
  agent::RecordRing ring;
  ASSERT_TRUE(ring.init(100));
  std::vector<uint8_t> record(40);
  std::iota(record.begin(), record.end(), uint8_t{0});
  bool wasEmpty = false;
  EXPECT_TRUE(ring.push(record.data(), record.size(), wasEmpty));
  EXPECT_TRUE(wasEmpty);
  EXPECT_TRUE(ring.push(record.data(), record.size(), wasEmpty));
  EXPECT_FALSE(wasEmpty);
  EXPECT_FALSE(ring.push(record.data(), record.size(), wasEmpty)) << "20 bytes free, 40 needed";
  EXPECT_FALSE(ring.tryPush(record.data(), record.size(), wasEmpty));
  EXPECT_EQ(ring.droppedRecords(), 1u) << "tryPush is not a loss";
  EXPECT_EQ(ring.droppedBytes(), 40u);
  EXPECT_EQ(ring.used(), 80u);
}

TEST(JvmRecordRing, WrapsAroundWithoutReordering) {
  agent::RecordRing ring;
  ASSERT_TRUE(ring.init(64));
  std::vector<uint8_t> expected;
  bool wasEmpty = false;
  for (uint8_t round = 0; round < 20; ++round) {
    std::vector<uint8_t> record(24, round);
    ASSERT_TRUE(ring.push(record.data(), record.size(), wasEmpty));
    // Consume in odd pieces, so record boundaries and the wrap point never line up.
    while (ring.used() > 20) {
      size_t n = 0;
      const uint8_t* data = ring.peek(n);
      size_t take = std::min<size_t>(n, 7);
      expected.insert(expected.end(), data, data + take);
      ring.consume(take);
    }
  }
  std::vector<uint8_t> rest = drain(ring);
  expected.insert(expected.end(), rest.begin(), rest.end());
  ASSERT_EQ(expected.size(), 20u * 24u);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(expected[i], i / 24) << "at byte " << i;
}

TEST(JvmRecordRing, ResetPutsTheNewSessionFirstAndReleaseStopsPushes) {
  agent::RecordRing ring;
  ASSERT_TRUE(ring.init(64));
  bool wasEmpty = false;
  std::vector<uint8_t> stale(30, 0xee), record(50, 1);
  ring.push(stale.data(), stale.size(), wasEmpty);
  ring.push(record.data(), record.size(), wasEmpty);  // dropped
  uint8_t preamble[8] = {1, 2, 3, 4, 5, 6, 7, 8}, hello[4] = {9, 9, 9, 9};
  ring.resetWith(preamble, sizeof preamble, hello, sizeof hello);
  EXPECT_EQ(ring.droppedRecords(), 0u);
  EXPECT_EQ(drain(ring), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9}));

  ring.release();
  EXPECT_FALSE(ring.push(record.data(), 10, wasEmpty));
  size_t n = 1;
  ring.peek(n);
  EXPECT_EQ(n, 0u);
  ASSERT_TRUE(ring.init(128));
  EXPECT_TRUE(ring.push(record.data(), record.size(), wasEmpty));
}

}  // namespace
}  // namespace jfrbpf::jvm::test
