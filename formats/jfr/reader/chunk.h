#pragma once
// One chunk of a recording, with its metadata and constant pools decoded, and its events.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "formats/jfr/reader/chunk_header.h"
#include "formats/jfr/reader/metadata.h"
#include "formats/jfr/reader/value.h"

namespace jfrbpf::jfr::reader {

// An event as delivered to a callback, valid during the call; what its constant-pool references lead to
// stays valid for the whole chunk (see recording.h).
class RecordedEvent : public RecordedObject {
 public:
  RecordedEvent(const RecordedObject& object, const ChunkHeader& chunk, uint64_t fileOffset, uint64_t size)
      : RecordedObject(object), chunk_(&chunk), fileOffset_(fileOffset), size_(size) {}

  const ChunkHeader& chunk() const { return *chunk_; }
  uint64_t fileOffset() const { return fileOffset_; }  // of the record
  uint64_t size() const { return size_; }              // of the record, in bytes

  // Field "startTime" (ticks), the JDK's mandatory first field; 0 when absent.
  int64_t startTicks() const;
  int64_t startTimeNanos() const;  // since the epoch
  // Field "duration" per its @Timespan unit; 0 for events without one.
  int64_t durationNanos() const;
  int64_t endTimeNanos() const;  // saturating

  // Field `fieldName` converted per its @Timestamp / @Timespan unit; nullopt when the field does not exist,
  // is not of that content type, or holds no number.
  std::optional<int64_t> timestampNanos(std::string_view fieldName) const;
  std::optional<int64_t> timespanNanos(std::string_view fieldName) const;

 private:
  const ChunkHeader* chunk_;
  uint64_t fileOffset_;
  uint64_t size_;
};

using EventCallback = std::function<void(const RecordedEvent&)>;
// Chooses event types to decode; others are skipped by size without decoding. Called once per event type
// per chunk.
using TypeFilter = std::function<bool(const TypeInfo&)>;

// A chunk's parsed metadata with its decoding plans. Consecutive chunks usually carry identical metadata
// (the JDK repeats it in every chunk), so one chunk may hand it to the next instead of parsing it again.
struct ChunkTypes;

class Chunk {
 public:
  // Decodes the metadata and every checkpoint of the chunk described by `header`; `file` is the whole file
  // and must outlive the chunk. `previous` (from an earlier chunk's types()) is reused when this chunk's
  // metadata content is byte-for-byte the same. Throws FormatError.
  Chunk(const ChunkHeader& header, std::span<const uint8_t> file,
        std::shared_ptr<const ChunkTypes> previous = nullptr);
  ~Chunk();
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;

  const ChunkHeader& header() const { return header_; }
  const Metadata& metadata() const;
  std::shared_ptr<const ChunkTypes> types() const;

  // The constant of type `type` (from this chunk's metadata()) with key `key`, as an event referencing it
  // would see it; null when absent.
  const Value* constant(const TypeInfo& type, int64_t key) const;

  // Every event record in file order (metadata and checkpoint records, and records of types the metadata
  // does not declare as events, are skipped by their size). Throws FormatError on malformed records.
  void forEachEvent(const EventCallback& callback, const TypeFilter& filter = {}) const;

 private:
  struct State;
  ChunkHeader header_;
  std::span<const uint8_t> bytes_;  // the chunk
  std::unique_ptr<State> state_;
};

}  // namespace jfrbpf::jfr::reader
