#pragma once
// Deduplication of stack traces within a chunk: open addressing over a hash of the frames, frames copied
// into a flat arena, so a repeated stack costs one hash and one comparison and no allocation.
#include <cstdint>
#include <span>
#include <vector>

#include "formats/jfr/writer/types.h"

namespace jfrbpf::jfr {

class StackTraceTable {
 public:
  StackTraceTable();

  static uint64_t hash(std::span<const StackFrame> frames, bool truncated);
  // The key stored for these frames, or 0.
  uint64_t find(std::span<const StackFrame> frames, bool truncated, uint64_t hash) const;
  // Stores frames that find() did not know under a key (never 0).
  void insert(std::span<const StackFrame> frames, bool truncated, uint64_t hash, uint64_t key);
  void clear();  // keeps the capacity for the next chunk
  uint32_t size() const { return count_; }
  size_t memoryBytes() const { return slots_.capacity() * sizeof(Slot) + frames_.capacity() * sizeof(StoredFrame); }

 private:
  struct Slot {
    uint64_t hash;
    uint64_t key;  // 0 = empty slot
    uint32_t firstFrame;
    uint32_t frameCount;
    bool truncated;
  };
  // StackFrame has padding; stored frames are packed so nothing undefined takes part in comparisons.
  struct StoredFrame {
    uint32_t method;
    int32_t lineNumber;
    int32_t bytecodeIndex;
    uint32_t type;
  };

  bool matches(const Slot& slot, std::span<const StackFrame> frames, bool truncated) const;
  void grow();

  std::vector<Slot> slots_;
  std::vector<StoredFrame> frames_;
  uint32_t count_ = 0;
};

}  // namespace jfrbpf::jfr
