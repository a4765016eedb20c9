#include "formats/jfr/writer/stack_trace_table.h"

#include <bit>
#include <cstring>

namespace jfrbpf::jfr {
namespace {

constexpr size_t kInitialSlots = 4096;  // power of two

uint64_t mum(uint64_t a, uint64_t b) {
  unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

// Each frame is mixed independently (the multiplies pipeline); only a rotate-xor chains them, so hashing a
// 64-frame stack takes little more than 64 multiplies' throughput. Position enters through the rotation.
uint64_t hashFrames(std::span<const StackFrame> frames, bool truncated) {
  uint64_t h = mum(frames.size() ^ 0x243f6a8885a308d3ull, truncated ? 0x13198a2e03707344ull : 0xa4093822299f31d0ull);
  for (const StackFrame& f : frames) {
    uint64_t a = f.method | static_cast<uint64_t>(static_cast<uint32_t>(f.lineNumber)) << 32;
    uint64_t b = static_cast<uint32_t>(f.bytecodeIndex) | static_cast<uint64_t>(f.type) << 32;
    h = std::rotl(h, 23) ^ mum(a ^ 0x082efa98ec4e6c89ull, b ^ 0x452821e638d01377ull);
  }
  return mum(h ^ 0xbe5466cf34e90c6cull, 0xc0ac29b7c97c50ddull);
}

}  // namespace

StackTraceTable::StackTraceTable() : slots_(kInitialSlots) {}

uint64_t StackTraceTable::hash(std::span<const StackFrame> frames, bool truncated) {
  return hashFrames(frames, truncated);
}

bool StackTraceTable::matches(const Slot& slot, std::span<const StackFrame> frames, bool truncated) const {
  if (slot.frameCount != frames.size() || slot.truncated != truncated) return false;
  const StoredFrame* stored = frames_.data() + slot.firstFrame;
  for (size_t i = 0; i < frames.size(); ++i) {
    const StackFrame& f = frames[i];
    if (stored[i].method != f.method || stored[i].lineNumber != f.lineNumber ||
        stored[i].bytecodeIndex != f.bytecodeIndex || stored[i].type != static_cast<uint32_t>(f.type))
      return false;
  }
  return true;
}

uint64_t StackTraceTable::find(std::span<const StackFrame> frames, bool truncated, uint64_t hash) const {
  size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.key == 0) return 0;
    if (slot.hash == hash && matches(slot, frames, truncated)) return slot.key;
  }
}

void StackTraceTable::insert(std::span<const StackFrame> frames, bool truncated, uint64_t hash, uint64_t key) {
  size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].key != 0) i = (i + 1) & mask;
  slots_[i] = {hash, key, static_cast<uint32_t>(frames_.size()), static_cast<uint32_t>(frames.size()), truncated};
  for (const StackFrame& f : frames)
    frames_.push_back({f.method, f.lineNumber, f.bytecodeIndex, static_cast<uint32_t>(f.type)});
  if (++count_ * 2 > slots_.size()) grow();
}

void StackTraceTable::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.key == 0) continue;
    size_t i = slot.hash & mask;
    while (slots_[i].key != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

void StackTraceTable::clear() {
  std::memset(slots_.data(), 0, slots_.size() * sizeof(Slot));
  frames_.clear();
  count_ = 0;
}

}  // namespace jfrbpf::jfr
