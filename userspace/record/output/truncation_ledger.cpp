#include "userspace/record/output/truncation_ledger.h"

namespace jfrbpf::record {

void TruncationLedger::report(jfr::Ticks now) {
  for (size_t i = 0; i < kEnds; ++i) {
    auto end = static_cast<StackEnd>(i);
    if (end == StackEnd::kRoot || counts_[i] == reported_[i]) continue;
    out_.truncatedStacks(now, stackEndCause(end), static_cast<int64_t>(counts_[i] - reported_[i]));
    reported_[i] = counts_[i];
  }
}

uint64_t TruncationLedger::truncated() const {
  uint64_t total = 0;
  for (size_t i = 0; i < kEnds; ++i) {
    if (static_cast<StackEnd>(i) != StackEnd::kRoot) total += counts_[i];
  }
  return total;
}

uint64_t TruncationLedger::total() const {
  uint64_t total = 0;
  for (uint64_t count : counts_) total += count;
  return total;
}

}  // namespace jfrbpf::record
