#pragma once
// Reads the chunk headers of a .jfr file's bytes, to check layout rules the JDK tools do not report.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace jfrbpf::test {

struct ChunkHeader {
  uint64_t fileOffset;
  std::string magic;
  uint16_t major, minor;
  uint64_t size, checkpointOffset, metadataOffset;
  int64_t startNanos, durationNanos, startTicks, ticksPerSecond;
  uint8_t state;
  uint16_t flags;
};

inline uint64_t bigEndian(const std::string& bytes, size_t at, int count) {
  if (at + static_cast<size_t>(count) > bytes.size()) throw std::runtime_error("read past the end of the file");
  uint64_t v = 0;
  for (int i = 0; i < count; ++i) v = v << 8 | static_cast<uint8_t>(bytes[at + static_cast<size_t>(i)]);
  return v;
}

// Throws if a chunk runs past the end of the file or has size 0.
inline std::vector<ChunkHeader> chunkHeaders(const std::string& bytes) {
  std::vector<ChunkHeader> chunks;
  for (size_t at = 0; at < bytes.size();) {
    ChunkHeader h{};
    h.fileOffset = at;
    h.magic = bytes.substr(at, 4);
    h.major = static_cast<uint16_t>(bigEndian(bytes, at + 4, 2));
    h.minor = static_cast<uint16_t>(bigEndian(bytes, at + 6, 2));
    h.size = bigEndian(bytes, at + 8, 8);
    h.checkpointOffset = bigEndian(bytes, at + 16, 8);
    h.metadataOffset = bigEndian(bytes, at + 24, 8);
    h.startNanos = static_cast<int64_t>(bigEndian(bytes, at + 32, 8));
    h.durationNanos = static_cast<int64_t>(bigEndian(bytes, at + 40, 8));
    h.startTicks = static_cast<int64_t>(bigEndian(bytes, at + 48, 8));
    h.ticksPerSecond = static_cast<int64_t>(bigEndian(bytes, at + 56, 8));
    h.state = static_cast<uint8_t>(bytes.at(at + 64));
    h.flags = static_cast<uint16_t>(bigEndian(bytes, at + 66, 2));
    if (h.size == 0 || at + h.size > bytes.size()) throw std::runtime_error("chunk size out of range");
    chunks.push_back(h);
    at += h.size;
  }
  return chunks;
}

}  // namespace jfrbpf::test
