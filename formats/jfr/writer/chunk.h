#pragma once
// The chunk being recorded, held in memory until it is complete: its events, its deduplicated stack traces
// (already encoded as pool entries), and the time range its events cover. assemble() surrounds them with
// the chunk header, the metadata event and one checkpoint holding every constant the chunk references.
#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>

#include "formats/jfr/writer/byte_buffer.h"
#include "formats/jfr/writer/clock.h"
#include "formats/jfr/writer/constant_pools.h"
#include "formats/jfr/writer/metadata_schema.h"
#include "formats/jfr/writer/stack_trace_table.h"

namespace jfrbpf::jfr {

inline constexpr size_t kChunkHeaderBytes = 68;

class Chunk {
 public:
  explicit Chunk(size_t expectedBytes);

  // Empties the chunk and starts it at `opened`.
  void start(ClockPair opened);

  ByteBuffer& events() { return events_; }

  // Pool key of this stack, encoding it on its first use in this chunk and marking the methods it references.
  // Frames must name valid methods or `fallbackMethod` stands in (it must be valid).
  //
  // Keys are unique for the whole recording: the JDK's parser keeps the previous chunk's resolved constants
  // and reuses them for a key that appears again, so a key may never name a different stack later. A stack
  // that was in the previous chunk keeps its key; any other gets a fresh one.
  uint64_t stackTraceKey(std::span<const StackFrame> frames, bool truncated, ConstantPools& pools,
                         MethodId fallbackMethod);

  // Widens the chunk's time range to cover an event, so the header's start and duration contain it (a
  // sample taken just before a rotation lands in the next chunk). Non-positive ticks are no time at all.
  void observe(Ticks ticks) {
    if (ticks > 0 && ticks < minTicks_) minTicks_ = ticks;
    if (ticks > maxTicks_) maxTicks_ = ticks;
  }

  Ticks openedTicks() const { return opened_.ticks; }
  uint64_t bufferedBytes() const { return events_.size() + stackPool_.size(); }
  // What its buffers hold in memory: the event buffer is reserved for a whole chunk up front, and only the
  // part ever written to is resident; unwrittenBytes() is the rest.
  size_t memoryBytes() const;
  size_t unwrittenBytes() const { return events_.capacity() - eventsWritten(); }
  uint32_t stackTraceCount() const { return stacks_.size(); }

  // The complete chunk as pieces to write in order (valid until the next start()); the final chunk of a
  // file carries the final-chunk flag.
  std::span<const iovec> assemble(const MetadataSchema& schema, const ConstantPools& pools, ClockPair closed,
                                  bool finalChunk);

 private:
  size_t eventsWritten() const { return std::max(eventsHighWater_, events_.size()); }

  ByteBuffer events_;
  size_t eventsHighWater_ = 0;  // the most an earlier chunk wrote into events_
  ByteBuffer stackPool_;
  StackTraceTable stacks_;          // this chunk's
  StackTraceTable previousStacks_;  // the previous chunk's, whose keys carry over
  uint64_t lastStackTraceKey_ = 0;
  ClockPair opened_{};
  Ticks minTicks_ = 0, maxTicks_ = 0;

  ByteBuffer head_;            // chunk header + metadata event
  ByteBuffer checkpointHead_;  // checkpoint fields up to the stack trace pool's entries
  ByteBuffer pools_;           // every other pool
  std::array<iovec, 5> pieces_{};
};

}  // namespace jfrbpf::jfr
