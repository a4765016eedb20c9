#pragma once
// The fixed 68-byte header every JFR chunk starts with, and the time conversions it defines.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace jfrbpf::jfr::reader {

struct FieldInfo;

struct ChunkHeader {
  static constexpr size_t kSize = 68;

  uint64_t fileOffset = 0;  // where the chunk starts in the file
  uint16_t major = 0;
  uint16_t minor = 0;
  int64_t size = 0;                // the whole chunk, header included
  int64_t constantPoolOffset = 0;  // of the last checkpoint, from the chunk start; 0 when none
  int64_t metadataOffset = 0;      // from the chunk start
  int64_t startNanos = 0;          // since the epoch
  int64_t durationNanos = 0;
  int64_t startTicks = 0;
  int64_t ticksPerSecond = 0;
  uint8_t state = 0;  // 0 = finished
  uint16_t flags = 0;

  bool finished() const { return state == 0; }
  bool finalChunk() const { return flags & 2; }

  // JDK semantics: startNanos + (ticks - startTicks) / (ticksPerSecond / 1e9), saturating.
  int64_t ticksToEpochNanos(int64_t ticks) const;
  int64_t ticksToNanos(int64_t ticks) const;
};

// Parses and validates the header of the chunk starting at `offset` in `file`.
ChunkHeader parseChunkHeader(std::span<const uint8_t> file, uint64_t offset);

// A field value in nanoseconds since the epoch, following its @Timestamp unit (TICKS,
// NANOSECONDS_SINCE_EPOCH, MILLISECONDS_SINCE_EPOCH, SECONDS_SINCE_EPOCH). nullopt when the field is no
// timestamp. Long.MIN_VALUE, the JDK's "no value", is passed through unchanged.
std::optional<int64_t> timestampToEpochNanos(const FieldInfo& field, int64_t raw, const ChunkHeader& chunk);
// A field value in nanoseconds following its @Timespan unit (TICKS, NANOSECONDS, MICROSECONDS,
// MILLISECONDS, SECONDS); nullopt when the field is no timespan. Long.MIN_VALUE passes through.
std::optional<int64_t> timespanToNanos(const FieldInfo& field, int64_t raw, const ChunkHeader& chunk);

}  // namespace jfrbpf::jfr::reader
