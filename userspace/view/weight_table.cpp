#include "userspace/view/weight_table.h"

#include <algorithm>

#include "formats/convert/saturating.h"
#include "userspace/view/text_format.h"

namespace jfrbpf::view {

using Align = TextTable::Align;

void WeightTotals::add(const convert::SampleGroup& group) {
  weight = convert::saturatingAdd(weight, group.cpuNanos);
  samples += group.samples;
}

std::string weightShare(int64_t weight, int64_t total) {
  return percent(static_cast<double>(weight), static_cast<double>(total));
}

std::vector<WeightRow> rowsByName(const std::map<std::string_view, WeightTotals>& byName) {
  std::vector<WeightRow> rows;
  rows.reserve(byName.size());
  for (const auto& [name, totals] : byName) rows.push_back(WeightRow{{std::string(name)}, totals});
  return rows;
}

std::vector<WeightRow> rowsByThread(const convert::Profile& profile) {
  std::vector<WeightTotals> totals(profile.threads.size());
  for (const convert::SampleGroup& group : profile.groups) totals[group.thread].add(group);
  std::vector<WeightRow> rows;
  for (size_t t = 0; t < totals.size(); ++t) {
    if (totals[t].samples == 0) continue;
    const convert::ProfileThread& thread = profile.threads[t];
    rows.push_back(WeightRow{{thread.name, thread.osThreadId ? std::to_string(thread.osThreadId) : ""}, totals[t]});
  }
  return rows;
}

std::string weightTable(const std::string& title, std::vector<TextTable::Column> labelColumns,
                        const WeightColumn& weight, std::vector<WeightRow> rows, int64_t total,
                        const ViewOptions& options, std::string_view rowNoun) {
  // Stable: rows of equal weight keep the order they came in (names alphabetically, threads as first seen).
  std::stable_sort(rows.begin(), rows.end(),
                   [](const WeightRow& a, const WeightRow& b) { return a.totals.weight > b.totals.weight; });
  std::vector<TextTable::Column> columns = std::move(labelColumns);
  columns.insert(columns.end(),
                 {{weight.header, Align::kRight}, {"Percent", Align::kRight}, {weight.countHeader, Align::kRight}});
  TextTable table(title, std::move(columns));
  for (size_t i = 0; i < rows.size() && i < options.top; ++i) {
    const WeightTotals& t = rows[i].totals;
    std::vector<std::string> cells = std::move(rows[i].labels);
    cells.insert(cells.end(), {weight.format(t.weight), weightShare(t.weight, total), groupThousands(t.samples)});
    table.addRow(std::move(cells));
  }
  std::string out = table.render(options.width);
  if (!rowNoun.empty()) out += moreRowsLine(rows.size(), options, rowNoun);
  return out;
}

std::string moreRowsLine(size_t rows, const ViewOptions& options, std::string_view rowNoun) {
  if (rows <= options.top) return "";
  return "(" + std::to_string(rows - options.top) + " more " + std::string(rowNoun) + "; use --top N)\n";
}

}  // namespace jfrbpf::view
