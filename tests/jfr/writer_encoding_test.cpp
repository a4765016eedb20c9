// Wire encodings of the JFR writer: exact bytes for varints, strings, floats, records, the chunk header.
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "formats/jfr/writer/byte_buffer.h"
#include "formats/jfr/writer/durations.h"
#include "formats/jfr/writer/metadata_schema.h"
#include "formats/jfr/writer/recording.h"
#include "tests/jfr/chunk_headers.h"
#include "tests/jfr/jdk_tools.h"

namespace jfrbpf::jfr {
namespace {

// jdk.ActiveSetting shows a duration in its shortest exact unit, as the JDK writes its own.
TEST(JfrDurations, FormatsDurationsAsJfrShowsThem) {
  EXPECT_EQ(formatDuration(10'000'000), "10 ms");
  EXPECT_EQ(formatDuration(1'000'000'000), "1 s");
  EXPECT_EQ(formatDuration(1'500'000), "1500 us");
  EXPECT_EQ(formatDuration(120'000'000'000), "2 m");
  EXPECT_EQ(formatDuration(7), "7 ns");
  EXPECT_EQ(formatDuration(std::numeric_limits<int64_t>::max()), "infinity");
}

using Bytes = std::vector<uint8_t>;

Bytes bytesOf(const ByteBuffer& buffer) { return Bytes(buffer.data(), buffer.data() + buffer.size()); }

Bytes varint(uint64_t v) {
  ByteBuffer b;
  b.putVarint(v);
  return bytesOf(b);
}

// The JDK's RecordingInput.readLong, restated: 7 bits per byte, the 9th byte whole.
uint64_t jdkReadLong(const Bytes& bytes) {
  uint64_t result = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 8) return result | static_cast<uint64_t>(bytes[i]) << 56;
    result |= static_cast<uint64_t>(bytes[i] & 0x7f) << (7 * i);
    if (!(bytes[i] & 0x80)) return result;
  }
  return result;
}

TEST(JfrWriterVarint, ExactBytes) {
  EXPECT_EQ(varint(0), (Bytes{0x00}));
  EXPECT_EQ(varint(127), (Bytes{0x7f}));
  EXPECT_EQ(varint(128), (Bytes{0x80, 0x01}));
  EXPECT_EQ(varint(300), (Bytes{0xac, 0x02}));
  EXPECT_EQ(varint((1ull << 56) - 1), (Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}));
  EXPECT_EQ(varint(1ull << 56), (Bytes{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}));
  EXPECT_EQ(varint(std::numeric_limits<int64_t>::max()), (Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}));
}

TEST(JfrWriterVarint, NegativeLongsAreNineBytesWithoutZigZag) {
  ByteBuffer minusOne, minimum;
  minusOne.putLong(-1);
  minimum.putLong(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(bytesOf(minusOne), Bytes(9, 0xff));
  EXPECT_EQ(bytesOf(minimum), Bytes(9, 0x80));
}

TEST(JfrWriterVarint, IntsAreZeroExtendedLikeHotSpot) {
  ByteBuffer b;
  b.putInt(-1);
  EXPECT_EQ(bytesOf(b), (Bytes{0xff, 0xff, 0xff, 0xff, 0x0f}));
  EXPECT_EQ(static_cast<int32_t>(jdkReadLong(bytesOf(b))), -1);
}

TEST(JfrWriterVarint, RoundTripsThroughTheJdkDecoder) {
  std::mt19937_64 random(42);
  for (int i = 0; i < 10000; ++i) {
    uint64_t v = random() >> (random() % 64);
    Bytes encoded = varint(v);
    ASSERT_EQ(encoded.size(), varintSize(v)) << v;
    ASSERT_EQ(jdkReadLong(encoded), v) << v;
  }
}

TEST(JfrWriterString, NullEmptyAndUtf8) {
  ByteBuffer b;
  b.putNullString();
  b.putString("");
  b.putStringOrNull("");
  b.putString("abc");
  EXPECT_EQ(bytesOf(b), (Bytes{0x00, 0x01, 0x00, 0x03, 0x03, 'a', 'b', 'c'}));
}

TEST(JfrWriterString, LengthCountsUtf8Bytes) {
  ByteBuffer b;
  b.putString("na\xc3\xafve \xe2\x98\x83");  // "naïve ☃": 7 characters, 10 bytes
  Bytes expected{0x03, 0x0a, 'n', 'a', 0xc3, 0xaf, 'v', 'e', ' ', 0xe2, 0x98, 0x83};
  EXPECT_EQ(bytesOf(b), expected);

  ByteBuffer longer;
  longer.putString(std::string(200, 'x'));
  ASSERT_EQ(longer.size(), 1u + 2u + 200u);
  EXPECT_EQ(longer.data()[1], 0xc8);
  EXPECT_EQ(longer.data()[2], 0x01);
}

TEST(JfrWriterFloat, BigEndianIeee754) {
  ByteBuffer b;
  b.putFloat(1.5f);
  b.putDouble(-2.0);
  b.putDouble(0.1);
  EXPECT_EQ(bytesOf(b), (Bytes{0x3f, 0xc0, 0x00, 0x00,                          //
                               0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  //
                               0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a}));
}

TEST(JfrWriterRecord, SizeCountsItselfAndWidensInPlace) {
  EXPECT_EQ(recordSize(0), 1u);
  EXPECT_EQ(recordSize(126), 127u);
  EXPECT_EQ(recordSize(127), 129u);  // 128 needs a two-byte size, which makes it 129
  EXPECT_EQ(recordSize(16381), 16383u);
  EXPECT_EQ(recordSize(16382), 16385u);

  for (size_t payload : {0u, 5u, 126u, 127u, 300u, 20000u}) {
    ByteBuffer b;
    b.putByte(0xee);  // something before the record
    size_t start = b.beginRecord();
    for (size_t i = 0; i < payload; ++i) b.putByte(static_cast<uint8_t>(i));
    b.endRecord(start);
    Bytes all = bytesOf(b);
    ASSERT_EQ(all.size(), 1 + recordSize(payload));
    Bytes record(all.begin() + 1, all.end());
    EXPECT_EQ(jdkReadLong(record), record.size()) << payload;
    size_t sizeBytes = record.size() - payload;
    for (size_t i = 0; i < payload; ++i) ASSERT_EQ(record[sizeBytes + i], static_cast<uint8_t>(i)) << payload;
  }
}

TEST(JfrWriterMetadata, IdFollowsContent) {
  MetadataSchema a = buildMetadataSchema(0), b = buildMetadataSchema(0), c = buildMetadataSchema(3'600'000);
  EXPECT_EQ(a.id, b.id);
  EXPECT_NE(a.id, c.id);
  EXPECT_GT(a.id, 0);
  EXPECT_EQ(eventTypeByName("jdk.CPUTimeSample"), kCpuTimeSampleEvent);
  EXPECT_EQ(eventTypeByName("jfrbpf.Note"), kNoteEvent);
  EXPECT_EQ(eventTypeByName("jdk.ExecutionSample"), kExecutionSampleEvent);
  EXPECT_FALSE(eventTypeByName("jdk.GarbageCollection"));
}

int64_t realtimeNanos() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

TEST(JfrWriterHeader, ChunkHeaderBytes) {
  test::TempDir dir;
  std::string path = dir.file("header.jfr");
  Ticks before = Recording::now();
  int64_t wallBefore = realtimeNanos();
  {
    Recording recording({.path = path});
    ThreadId thread = recording.internThread({"main", 100, "main", 1});
    recording.cpuTimeSamplesLost(Recording::now(), 1, thread);
    recording.close();
  }
  Ticks after = Recording::now();
  std::string bytes = test::readFile(path);
  ASSERT_GE(bytes.size(), 68u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("FLR\0\0\x02\0\x01", 8));  // magic, version 2.1

  auto chunks = test::chunkHeaders(bytes);
  ASSERT_EQ(chunks.size(), 1u);
  const auto& h = chunks[0];
  EXPECT_EQ(h.size, bytes.size());  // nothing trailing
  EXPECT_EQ(h.metadataOffset, 68u);
  EXPECT_GT(h.checkpointOffset, h.metadataOffset);
  EXPECT_LT(h.checkpointOffset, h.size);
  // The offsets point at records: `size | type` with type 0 (metadata) and 1 (checkpoint); the
  // checkpoint is the last record and ends the chunk.
  auto recordAt = [&](size_t at) {
    Bytes tail(bytes.begin() + static_cast<ptrdiff_t>(at),
               bytes.begin() + static_cast<ptrdiff_t>(std::min(at + 18, bytes.size())));
    uint64_t size = jdkReadLong(tail);
    Bytes afterSize(tail.begin() + static_cast<ptrdiff_t>(varintSize(size)), tail.end());
    return std::pair{size, jdkReadLong(afterSize)};
  };
  EXPECT_EQ(recordAt(h.metadataOffset).second, 0u);
  EXPECT_EQ(recordAt(h.checkpointOffset).second, 1u);
  EXPECT_EQ(h.checkpointOffset + recordAt(h.checkpointOffset).first, h.size);
  EXPECT_EQ(h.state, 0u);
  EXPECT_EQ(static_cast<uint8_t>(bytes[65]), 0u);
  EXPECT_EQ(h.flags, 3u);  // compressed integers | final chunk
  EXPECT_EQ(h.ticksPerSecond, 1'000'000'000);
  EXPECT_GE(h.startTicks, before);
  EXPECT_LE(h.startTicks + h.durationNanos, after);
  EXPECT_GE(h.durationNanos, 0);
  EXPECT_GE(h.startNanos, wallBefore - 1'000'000);  // same instant as startTicks, within clock-read noise
  EXPECT_LE(h.startNanos, wallBefore + (after - before) + 1'000'000);
}

// Samples taken just before a rotation arrive in the next chunk: the header's range widens to cover them,
// keeping start ticks and start wall clock consistent (same instant), so times convert unchanged.
TEST(JfrWriterHeader, ChunkRangeCoversEarlierAndLaterEvents) {
  test::TempDir dir;
  std::string path = dir.file("range.jfr");
  Ticks opened = Recording::now();
  int64_t wallOpened = realtimeNanos();
  Ticks early = opened - 5'000'000'000, late = opened + 7'000'000'000;
  {
    Recording recording({.path = path});
    recording.note(early, "info", "early");
    recording.note(late, "info", "late");
    recording.close();
  }
  auto chunks = test::chunkHeaders(test::readFile(path));
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].startTicks, early);
  EXPECT_EQ(chunks[0].durationNanos, late - early);
  int64_t wallOfEarly = chunks[0].startNanos;  // start ticks == early
  EXPECT_NEAR(static_cast<double>(wallOfEarly), static_cast<double>(wallOpened - 5'000'000'000), 50e6);
}

}  // namespace
}  // namespace jfrbpf::jfr
