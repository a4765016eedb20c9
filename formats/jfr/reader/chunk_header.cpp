#include "formats/jfr/reader/chunk_header.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "formats/jfr/reader/byte_cursor.h"
#include "formats/jfr/reader/metadata.h"

namespace jfrbpf::jfr::reader {
namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t saturate(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return kMax;
  if (v <= -9.2233720368547758e18) return kMin;
  return static_cast<int64_t>(v);
}

int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? kMax : kMin;
  return out;
}

int64_t saturatingMultiply(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return (a < 0) != (b < 0) ? kMin : kMax;
  return out;
}

int64_t saturatingSubtract(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_sub_overflow(a, b, &out)) return b < 0 ? kMax : kMin;
  return out;
}

// The unit of a content-type annotation on the field. Found by name too, for files whose annotation types
// lack their @ContentType marker.
std::optional<std::string_view> unitOf(const FieldInfo& field, std::string_view contentType) {
  if (field.contentType == contentType) return field.unit;
  if (const AnnotationInfo* a = field.annotation(contentType)) return a->value().value_or("");
  return std::nullopt;
}

}  // namespace

int64_t ChunkHeader::ticksToNanos(int64_t ticks) const {
  if (ticksPerSecond == kNanosPerSecond) return ticks;
  return saturate(static_cast<double>(ticks) / (static_cast<double>(ticksPerSecond) / 1e9));
}

int64_t ChunkHeader::ticksToEpochNanos(int64_t ticks) const {
  return saturatingAdd(startNanos, ticksToNanos(saturatingSubtract(ticks, startTicks)));
}

ChunkHeader parseChunkHeader(std::span<const uint8_t> file, uint64_t offset) {
  ByteCursor in(file.subspan(offset), offset);
  if (in.remaining() < ChunkHeader::kSize) {
    in.fail("only " + std::to_string(in.remaining()) + " bytes left, too few for a chunk header (" +
            std::to_string(ChunkHeader::kSize) + "); the file is truncated or has trailing bytes");
  }
  static constexpr uint8_t kMagic[4] = {'F', 'L', 'R', 0};
  if (std::memcmp(in.take(4).data(), kMagic, 4) != 0) in.failAt(offset, "no JFR chunk magic 'FLR\\0'");
  ChunkHeader h;
  h.fileOffset = offset;
  h.major = in.u16be();
  h.minor = in.u16be();
  if (h.major != 1 && h.major != 2) {
    in.failAt(offset + 4, "unsupported JFR version " + std::to_string(h.major) + "." + std::to_string(h.minor) +
                              " (1.x and 2.x are supported)");
  }
  h.size = static_cast<int64_t>(in.u64be());
  h.constantPoolOffset = static_cast<int64_t>(in.u64be());
  h.metadataOffset = static_cast<int64_t>(in.u64be());
  h.startNanos = static_cast<int64_t>(in.u64be());
  h.durationNanos = static_cast<int64_t>(in.u64be());
  h.startTicks = static_cast<int64_t>(in.u64be());
  h.ticksPerSecond = static_cast<int64_t>(in.u64be());
  h.state = in.u8();
  in.u8();  // padding
  h.flags = in.u16be();

  uint64_t available = file.size() - offset;
  bool sizeFits = h.size >= static_cast<int64_t>(ChunkHeader::kSize) && static_cast<uint64_t>(h.size) <= available;
  if (!sizeFits && h.state != 0) {
    in.failAt(offset + 64, "the chunk is still being written (file state " + std::to_string(h.state) +
                               "); read it once the recording has finished");
  }
  if (h.size < static_cast<int64_t>(ChunkHeader::kSize)) {
    in.failAt(offset + 8, "chunk size " + std::to_string(h.size) + " is smaller than the chunk header");
  }
  if (!sizeFits) {
    in.failAt(offset + 8, "chunk size " + std::to_string(h.size) + " exceeds the " + std::to_string(available) +
                              " bytes left in the file");
  }
  auto inChunk = [&](int64_t at) { return at >= static_cast<int64_t>(ChunkHeader::kSize) && at < h.size; };
  if (h.constantPoolOffset != 0 && !inChunk(h.constantPoolOffset)) {
    in.failAt(offset + 16, "constant pool offset " + std::to_string(h.constantPoolOffset) + " lies outside the chunk");
  }
  if (h.metadataOffset == 0) {
    in.failAt(offset + 24, "chunk has no metadata; the recording was not finished (the JVM or writer died)");
  }
  if (!inChunk(h.metadataOffset)) {
    in.failAt(offset + 24, "metadata offset " + std::to_string(h.metadataOffset) + " lies outside the chunk");
  }
  if (h.ticksPerSecond <= 0) {
    in.failAt(offset + 56, "ticks per second is " + std::to_string(h.ticksPerSecond) + ", must be positive");
  }
  return h;
}

std::optional<int64_t> timestampToEpochNanos(const FieldInfo& field, int64_t raw, const ChunkHeader& chunk) {
  auto unit = unitOf(field, "jdk.jfr.Timestamp");
  if (!unit) return std::nullopt;
  if (raw == kMin) return raw;
  if (*unit == "TICKS") return chunk.ticksToEpochNanos(raw);
  if (*unit == "NANOSECONDS_SINCE_EPOCH") return raw;
  if (*unit == "MILLISECONDS_SINCE_EPOCH") return saturatingMultiply(raw, 1'000'000);
  if (*unit == "SECONDS_SINCE_EPOCH") return saturatingMultiply(raw, kNanosPerSecond);
  return std::nullopt;
}

std::optional<int64_t> timespanToNanos(const FieldInfo& field, int64_t raw, const ChunkHeader& chunk) {
  auto unit = unitOf(field, "jdk.jfr.Timespan");
  if (!unit) return std::nullopt;
  if (raw == kMin) return raw;
  if (*unit == "TICKS") return chunk.ticksToNanos(raw);
  if (*unit == "NANOSECONDS") return raw;
  if (*unit == "MICROSECONDS") return saturatingMultiply(raw, 1'000);
  if (*unit == "MILLISECONDS") return saturatingMultiply(raw, 1'000'000);
  if (*unit == "SECONDS") return saturatingMultiply(raw, kNanosPerSecond);
  return std::nullopt;
}

}  // namespace jfrbpf::jfr::reader
