#include "formats/jfr/writer/chunk.h"

#include <algorithm>
#include <utility>

#include "formats/jfr/writer/type_ids.h"

namespace jfrbpf::jfr {
namespace {

constexpr uint16_t kMajorVersion = 2, kMinorVersion = 1;
constexpr uint16_t kFlagCompressedIntegers = 1, kFlagFinalChunk = 2;
constexpr int64_t kTicksPerSecond = 1'000'000'000;
constexpr uint8_t kCheckpointFlush = 1;

void storeBigEndian(uint8_t* p, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) *p++ = static_cast<uint8_t>(v >> (8 * i));
}

FrameType normalized(FrameType type) {
  return static_cast<uint8_t>(type) <= static_cast<uint8_t>(FrameType::Native) ? type : FrameType::Native;
}

}  // namespace

Chunk::Chunk(size_t expectedBytes) : events_(expectedBytes) {}

void Chunk::start(ClockPair opened) {
  eventsHighWater_ = eventsWritten();
  events_.clear();
  stackPool_.clear();
  std::swap(stacks_, previousStacks_);
  stacks_.clear();
  opened_ = opened;
  minTicks_ = maxTicks_ = opened.ticks;
}

size_t Chunk::memoryBytes() const {
  return eventsWritten() + stackPool_.capacity() + stacks_.memoryBytes() + previousStacks_.memoryBytes() +
         head_.capacity() + checkpointHead_.capacity() + pools_.capacity();
}

uint64_t Chunk::stackTraceKey(std::span<const StackFrame> frames, bool truncated, ConstantPools& pools,
                              MethodId fallbackMethod) {
  uint64_t hash = StackTraceTable::hash(frames, truncated);
  if (uint64_t key = stacks_.find(frames, truncated, hash)) return key;
  uint64_t key = previousStacks_.find(frames, truncated, hash);
  if (key == 0) key = ++lastStackTraceKey_;
  stacks_.insert(frames, truncated, hash, key);
  // StackTrace pool entry: key, truncated, frame count, then each frame inline (method, line, bci, type).
  stackPool_.putVarint(key);
  stackPool_.putBool(truncated);
  stackPool_.putVarint(frames.size());
  for (const StackFrame& frame : frames) {
    MethodId method = pools.isMethod(frame.method) ? frame.method : fallbackMethod;
    FrameType type = normalized(frame.type);
    pools.markMethod(method);
    pools.markFrameType(type);
    uint8_t* p = stackPool_.claim(4 * kMaxVarintBytes);
    p = putVarint(p, method);
    p = putInt(p, frame.lineNumber);
    p = putInt(p, frame.bytecodeIndex);
    p = putVarint(p, static_cast<uint8_t>(type));
    stackPool_.commit(p);
  }
  return key;
}

std::span<const iovec> Chunk::assemble(const MetadataSchema& schema, const ConstantPools& pools, ClockPair closed,
                                       bool finalChunk) {
  Ticks startTicks = minTicks_;
  Ticks endTicks = std::max(maxTicks_, closed.ticks);
  int64_t startNanos = opened_.epochNanos - (opened_.ticks - startTicks);

  head_.clear();
  head_.commit(head_.claim(kChunkHeaderBytes) + kChunkHeaderBytes);
  size_t metadata = head_.beginRecord();
  head_.putVarint(kMetadataRecord);
  head_.putLong(startTicks);
  head_.putLong(0);  // duration
  head_.putLong(schema.id);
  head_.putBytes(schema.body.data(), schema.body.size());
  head_.endRecord(metadata);

  pools_.clear();
  uint32_t poolCount = pools.writeReferencedPools(pools_);
  bool hasStacks = stacks_.size() > 0;
  if (hasStacks) ++poolCount;

  // The checkpoint's size comes first but covers the pools that follow in separate buffers.
  ByteBuffer fields;
  fields.putVarint(kCheckpointRecord);
  fields.putLong(endTicks);
  fields.putLong(0);  // duration
  fields.putLong(0);  // delta to the previous checkpoint: this is the only one
  fields.putByte(kCheckpointFlush);
  fields.putVarint(poolCount);
  if (hasStacks) {
    fields.putVarint(kStackTraceType);
    fields.putVarint(stacks_.size());
  }
  size_t payload = fields.size() + (hasStacks ? stackPool_.size() : 0) + pools_.size();
  checkpointHead_.clear();
  checkpointHead_.putVarint(recordSize(payload));
  checkpointHead_.putBytes(fields.data(), fields.size());

  uint64_t checkpointOffset = head_.size() + events_.size();
  uint64_t chunkSize = checkpointOffset + recordSize(payload);

  uint8_t* h = head_.data();
  std::copy_n("FLR\0", 4, h);
  storeBigEndian(h + 4, kMajorVersion, 2);
  storeBigEndian(h + 6, kMinorVersion, 2);
  storeBigEndian(h + 8, chunkSize, 8);
  storeBigEndian(h + 16, checkpointOffset, 8);
  storeBigEndian(h + 24, kChunkHeaderBytes, 8);  // metadata right after the header
  storeBigEndian(h + 32, static_cast<uint64_t>(startNanos), 8);
  storeBigEndian(h + 40, static_cast<uint64_t>(endTicks - startTicks), 8);  // 1 tick = 1 ns
  storeBigEndian(h + 48, static_cast<uint64_t>(startTicks), 8);
  storeBigEndian(h + 56, kTicksPerSecond, 8);
  h[64] = 0;  // file state: finished (readers wait on anything else)
  h[65] = 0;
  storeBigEndian(h + 66, kFlagCompressedIntegers | (finalChunk ? kFlagFinalChunk : 0), 2);

  auto piece = [](const ByteBuffer& b) { return iovec{const_cast<uint8_t*>(b.data()), b.size()}; };
  pieces_ = {piece(head_), piece(events_), piece(checkpointHead_), hasStacks ? piece(stackPool_) : iovec{},
             piece(pools_)};
  return pieces_;
}

}  // namespace jfrbpf::jfr
