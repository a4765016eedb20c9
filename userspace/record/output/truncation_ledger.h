#pragma once
// Counts the samples of one output file by how their user stacks ended, and writes jfrbpf.TruncatedStacks
// for every cause that grew since the last report, so that a recording says how many of its stacks are
// incomplete and why (the stacks themselves carry the truncated flag and a marker frame).
#include <array>
#include <cstdint>

#include "formats/jfr/writer/recording.h"
#include "userspace/record/output/stack_end.h"

namespace jfrbpf::record {

class TruncationLedger {
 public:
  explicit TruncationLedger(jfr::Recording& out) : out_(out) {}

  void count(StackEnd end, uint64_t samples = 1) { counts_[static_cast<size_t>(end)] += samples; }
  void report(jfr::Ticks now);

  uint64_t samples(StackEnd end) const { return counts_[static_cast<size_t>(end)]; }
  uint64_t truncated() const;  // every end but kRoot
  uint64_t total() const;      // every stack counted

 private:
  static constexpr size_t kEnds = static_cast<size_t>(StackEnd::kCount);
  jfr::Recording& out_;
  std::array<uint64_t, kEnds> counts_{};
  std::array<uint64_t, kEnds> reported_{};
};

}  // namespace jfrbpf::record
