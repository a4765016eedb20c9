#pragma once
// Tables of the views whose samples stand for unequal amounts (off-CPU time, allocated bytes): rows ranked by
// the sum of their samples' weights, not by their number, since one sample may stand for a 2 s wait and
// another for a 1 ms one.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "formats/convert/profile.h"
#include "userspace/view/text_table.h"
#include "userspace/view/views.h"

namespace jfrbpf::view {

struct WeightTotals {
  int64_t weight = 0;  // what the samples stand for: nanoseconds, or bytes (SampleGroup::cpuNanos)
  uint64_t samples = 0;
  void add(const convert::SampleGroup& group);
};

// "64.52%": `weight`'s share of `total`.
std::string weightShare(int64_t weight, int64_t total);

// A row's label cells, one per label column, and what its samples add up to.
struct WeightRow {
  std::vector<std::string> labels;
  WeightTotals totals;
};
// The row of samples whose stack has no frame to name their site (a profile built elsewhere): every sample
// keeps a row.
inline constexpr std::string_view kNoSite = "[no frame]";

// One row per name.
std::vector<WeightRow> rowsByName(const std::map<std::string_view, WeightTotals>& byName);
// One row per thread with samples, labelled by its name and OS thread id, in the order threads were first seen.
std::vector<WeightRow> rowsByThread(const convert::Profile& profile);

// The weight column: its header ("Off-CPU Time") and how it shows a weight (humanDuration); and the count
// column's header: "Samples", or "Events" where every event is recorded rather than sampled (lock waits).
struct WeightColumn {
  std::string header;
  std::string (*format)(int64_t);
  std::string countHeader = "Samples";
};

// The rows, heaviest first, at most options.top of them: their labels, weight, share of `total` and count.
// Rows left out are counted under the table, as "(N more `rowNoun`; use --top N)", where `rowNoun` is given.
std::string weightTable(const std::string& title, std::vector<TextTable::Column> labelColumns,
                        const WeightColumn& weight, std::vector<WeightRow> rows, int64_t total,
                        const ViewOptions& options, std::string_view rowNoun = "");

// "(3 more threads; use --top N)\n" when `rows` exceed options.top, else "".
std::string moreRowsLine(size_t rows, const ViewOptions& options, std::string_view rowNoun);

}  // namespace jfrbpf::view
