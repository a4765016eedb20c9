#pragma once
// Method-timing statistics slots, handed to JVMs in fixed ranges: a host recording runs for days while JVMs
// come and go, so a range comes back when its JVM's file is finished and serves the next JVM.
#include <cstdint>
#include <optional>
#include <vector>

namespace jfrbpf::record {

class SlotRanges {
 public:
  // [0, totalSlots) in ranges of `rangeSize`.
  SlotRanges(uint32_t totalSlots, uint32_t rangeSize) : rangeSize_(rangeSize) {
    for (uint32_t base = totalSlots / rangeSize * rangeSize; base >= rangeSize; base -= rangeSize)
      free_.push_back(base - rangeSize);  // lowest last: handed out first
  }

  // The first slot of a free range; nothing when every range is in use.
  std::optional<uint32_t> acquire() {
    if (free_.empty()) return std::nullopt;
    const uint32_t base = free_.back();
    free_.pop_back();
    return base;
  }
  void release(uint32_t base) { free_.push_back(base); }

  uint32_t rangeSize() const { return rangeSize_; }
  size_t ranges() const { return free_.size(); }  // free now

 private:
  uint32_t rangeSize_;
  std::vector<uint32_t> free_;
};

}  // namespace jfrbpf::record
