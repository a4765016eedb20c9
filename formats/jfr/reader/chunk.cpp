#include "formats/jfr/reader/chunk.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <vector>

#include "formats/jfr/reader/arena.h"
#include "formats/jfr/reader/byte_cursor.h"
#include "formats/jfr/reader/constant_pools.h"
#include "formats/jfr/reader/key_hash.h"
#include "formats/jfr/reader/schema.h"
#include "formats/jfr/reader/value_decoder.h"

namespace jfrbpf::jfr::reader {

struct ChunkTypes {
  std::span<const uint8_t> content;  // the metadata record from its id on, to recognize it in the next chunk
  Metadata metadata;
  std::unique_ptr<Schema> schema;
  std::unordered_map<int64_t, const TypePlan*, KeyHash> eventPlans;  // by event type id
};

struct Chunk::State {
  std::shared_ptr<const ChunkTypes> types;
  std::unique_ptr<ConstantPools> pools;
};

namespace {

// A cursor over the whole record starting at `offset` in the chunk, after checking its size fits.
ByteCursor recordAt(std::span<const uint8_t> chunk, uint64_t chunkOffset, int64_t offset, const char* what) {
  ByteCursor in(chunk, chunkOffset);
  in.seek(static_cast<size_t>(offset));
  uint64_t size = in.varint();
  if (size == 0 || size > chunk.size() - static_cast<size_t>(offset)) {
    in.failAt(chunkOffset + offset, std::string(what) + " record size " + std::to_string(size) +
                                        " is zero or runs past the chunk end");
  }
  in.seek(static_cast<size_t>(offset));
  return in.split(size);
}

// The metadata record without the fields that differ between chunks (size, type, start ticks, duration).
std::span<const uint8_t> metadataContent(ByteCursor record) {
  for (int i = 0; i < 4; ++i) record.varint();
  return record.take(record.remaining());
}

std::shared_ptr<const ChunkTypes> parseTypes(ByteCursor record, uint64_t recordOffset) {
  auto types = std::make_shared<ChunkTypes>();
  types->content = metadataContent(record);
  types->metadata = Metadata::parse(record);
  types->schema = std::make_unique<Schema>(types->metadata, recordOffset);
  for (const TypeInfo& type : types->metadata.types()) {
    // Record types 0 and 1 are metadata and checkpoints whatever the metadata claims.
    if (type.isEvent() && type.id != 0 && type.id != 1) types->eventPlans.emplace(type.id, &types->schema->plan(type));
  }
  return types;
}

// Offsets of the chunk's checkpoints in file order. The header points at the last one; each names the
// previous one by a negative delta, 0 ending the chain. Requiring each checkpoint to end before its
// successor starts makes the chain finite and its records disjoint, so hostile deltas can neither loop
// nor make the reader decode the same bytes twice.
std::vector<int64_t> checkpointChain(std::span<const uint8_t> chunk, const ChunkHeader& header) {
  std::vector<int64_t> chain;
  int64_t nextStart = header.size;
  for (int64_t at = header.constantPoolOffset; at != 0;) {
    ByteCursor record = recordAt(chunk, header.fileOffset, at, "checkpoint");
    uint64_t size = record.varint();
    if (at + static_cast<int64_t>(size) > nextStart) {
      record.failAt(header.fileOffset + at, "checkpoint overlaps the checkpoint after it");
    }
    uint64_t typeOffset = record.fileOffset();
    if (record.varint() != 1) record.failAt(typeOffset, "constant pool offset does not lead to a checkpoint record");
    record.varint();  // start ticks
    record.varint();  // duration
    uint64_t deltaOffset = record.fileOffset();
    int64_t delta = record.varlong();
    chain.push_back(at);
    if (delta == 0) break;
    if (delta > 0 || at + delta < static_cast<int64_t>(ChunkHeader::kSize)) {
      record.failAt(deltaOffset, "checkpoint delta " + std::to_string(delta) + " does not lead to an earlier record");
    }
    nextStart = at;
    at += delta;
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

}  // namespace

Chunk::Chunk(const ChunkHeader& header, std::span<const uint8_t> file, std::shared_ptr<const ChunkTypes> previous)
    : header_(header), bytes_(file.subspan(header.fileOffset, header.size)), state_(std::make_unique<State>()) {
  State& s = *state_;
  ByteCursor metadataRecord = recordAt(bytes_, header_.fileOffset, header_.metadataOffset, "metadata");
  auto content = metadataContent(metadataRecord);
  if (previous && std::equal(content.begin(), content.end(), previous->content.begin(), previous->content.end())) {
    s.types = std::move(previous);
  } else {
    s.types = parseTypes(metadataRecord, header_.fileOffset + header_.metadataOffset);
  }
  const Metadata& metadata = s.types->metadata;
  s.pools = std::make_unique<ConstantPools>(metadata);

  for (int64_t offset : checkpointChain(bytes_, header_)) {
    s.pools->load(recordAt(bytes_, header_.fileOffset, offset, "checkpoint"), metadata, *s.types->schema);
  }
  s.pools->resolveAll(header_.fileOffset);
}

Chunk::~Chunk() = default;

const Metadata& Chunk::metadata() const { return state_->types->metadata; }

std::shared_ptr<const ChunkTypes> Chunk::types() const { return state_->types; }

const Value* Chunk::constant(const TypeInfo& type, int64_t key) const {
  return state_->pools->find(static_cast<uint32_t>(type.index), key);
}

void Chunk::forEachEvent(const EventCallback& callback, const TypeFilter& filter) const {
  const State& s = *state_;
  std::unordered_map<int64_t, const TypePlan*, KeyHash> filtered;
  if (filter) {
    for (const auto& [id, plan] : s.types->eventPlans) {
      if (filter(*plan->type)) filtered.emplace(id, plan);
    }
  }
  const auto& plans = filter ? filtered : s.types->eventPlans;

  Arena arena;  // everything an event holds inline; reset for each event
  ValueDecoder decoder(*s.pools, arena, ValueDecoder::References::kResolve);
  ByteCursor in(bytes_, header_.fileOffset);
  in.seek(ChunkHeader::kSize);
  while (!in.atEnd()) {
    size_t start = in.position();
    uint64_t size = in.varint();
    if (size == 0 || size > bytes_.size() - start) {
      in.failAt(header_.fileOffset + start,
                "record size " + std::to_string(size) + " is zero or runs past the chunk end");
    }
    in.seek(start);
    ByteCursor record = in.split(size);
    record.varint();  // size
    auto it = plans.find(record.varlong());
    if (it == plans.end()) continue;  // metadata, checkpoint, unknown or unwanted type
    const TypePlan& plan = *it->second;
    arena.reset();
    Value* fields = arena.allocate<Value>(plan.fields.size());
    decoder.decodeFields(record, plan, fields);
    callback(RecordedEvent(RecordedObject(plan.type, fields), header_, header_.fileOffset + start, size));
  }
}

namespace {
std::optional<size_t> longField(const RecordedObject& object, std::string_view name) {
  auto index = object.type().fieldIndex(name);
  if (!index || object.field(*index).kind() != Value::Kind::kLong) return std::nullopt;
  return index;
}
}  // namespace

int64_t RecordedEvent::startTicks() const { return getLong("startTime"); }

int64_t RecordedEvent::startTimeNanos() const { return chunk_->ticksToEpochNanos(startTicks()); }

int64_t RecordedEvent::durationNanos() const { return timespanNanos("duration").value_or(0); }

int64_t RecordedEvent::endTimeNanos() const {
  int64_t end;
  int64_t duration = durationNanos();
  if (__builtin_add_overflow(startTimeNanos(), duration, &end)) {
    return duration > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return end;
}

std::optional<int64_t> RecordedEvent::timestampNanos(std::string_view fieldName) const {
  auto index = longField(*this, fieldName);
  if (!index) return std::nullopt;
  return timestampToEpochNanos(type().fields[*index], field(*index).asLong(), *chunk_);
}

std::optional<int64_t> RecordedEvent::timespanNanos(std::string_view fieldName) const {
  auto index = longField(*this, fieldName);
  if (!index) return std::nullopt;
  return timespanToNanos(type().fields[*index], field(*index).asLong(), *chunk_);
}

}  // namespace jfrbpf::jfr::reader
