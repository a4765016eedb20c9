// method-timing and method-traces (JEP 520's jdk.MethodTiming and jdk.MethodTrace).
#include <algorithm>
#include <climits>
#include <map>

#include "formats/convert/saturating.h"
#include "userspace/view/method_stats.h"
#include "userspace/view/text_format.h"
#include "userspace/view/text_table.h"
#include "userspace/view/views.h"

namespace jfrbpf::view {
namespace {

using Align = TextTable::Align;

std::string timeOrMissing(int64_t nanos) { return nanos == INT64_MIN ? "N/A" : jfrViewTimespan(nanos); }

}  // namespace

std::string methodTimingView(const RecordingDigest& digest, const ViewOptions& options) {
  if (digest.timings.empty()) {
    return "\nNo jdk.MethodTiming events in " + digest.path +
           " (record with jfrbpf record --method-timing FILTER, or JDK 25's jdk.MethodTiming#filter=FILTER).\n";
  }
  std::vector<MethodTimingRow> rows = digest.timings;
  // As JDK 25's view: by average time, longest first; rows without a measurable time last.
  std::stable_sort(rows.begin(), rows.end(), [&](const MethodTimingRow& a, const MethodTimingRow& b) {
    if (a.averageNanos != b.averageNanos) return a.averageNanos > b.averageNanos;
    return digest.tables.methods[a.method].name < digest.tables.methods[b.method].name;
  });
  TextTable table("Method Timing", {{"Timed Method"},
                                    {"Invocations", Align::kRight},
                                    {"Minimum Time", Align::kRight},
                                    {"Average Time", Align::kRight},
                                    {"Maximum Time", Align::kRight}});
  for (size_t i = 0; i < rows.size() && i < options.top; ++i) {
    const MethodTimingRow& r = rows[i];
    table.addRow({digest.tables.methods[r.method].name,
                  groupThousands(static_cast<uint64_t>(std::max<int64_t>(0, r.invocations))),
                  timeOrMissing(r.minimumNanos), timeOrMissing(r.averageNanos), timeOrMissing(r.maximumNanos)});
  }
  return table.render(options.width);
}

std::string methodTracesView(const RecordingDigest& digest, const ViewOptions& options) {
  if (digest.traces.empty()) {
    return "\nNo jdk.MethodTrace events in " + digest.path +
           " (record with jfrbpf record --method-trace FILTER, or JDK 25's jdk.MethodTrace#filter=FILTER).\n";
  }
  const convert::Profile& tables = digest.tables;
  struct Totals {
    uint64_t count = 0;
    int64_t total = 0;
    int64_t maximum = 0;
  };
  std::map<uint32_t, Totals> byMethod;
  for (const MethodTraceRecord& t : digest.traces) {
    Totals& totals = byMethod[t.method];
    totals.count += 1;
    totals.total = convert::saturatingAdd(totals.total, t.durationNanos);
    totals.maximum = std::max(totals.maximum, t.durationNanos);
  }
  std::vector<std::pair<uint32_t, Totals>> methods(byMethod.begin(), byMethod.end());
  std::stable_sort(methods.begin(), methods.end(),
                   [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  TextTable summary("Traced Methods", {{"Traced Method"},
                                       {"Traces", Align::kRight},
                                       {"Total Time", Align::kRight},
                                       {"Average Time", Align::kRight},
                                       {"Maximum Time", Align::kRight}});
  for (size_t i = 0; i < methods.size() && i < options.top; ++i) {
    const Totals& t = methods[i].second;
    summary.addRow({tables.methods[methods[i].first].name, groupThousands(t.count), humanDuration(t.total),
                    humanDuration(t.total / static_cast<int64_t>(t.count)), humanDuration(t.maximum)});
  }
  std::string out = summary.render(options.width);

  std::vector<const MethodTraceRecord*> longest;
  for (const MethodTraceRecord& t : digest.traces) longest.push_back(&t);
  size_t shown = std::min(longest.size(), options.top);
  std::partial_sort(
      longest.begin(), longest.begin() + static_cast<long>(shown), longest.end(),
      [](const MethodTraceRecord* a, const MethodTraceRecord* b) { return a->durationNanos > b->durationNanos; });
  out +=
      heading("Longest Method Traces (" + std::to_string(shown) + " of " + groupThousands(digest.traces.size()) + ")");
  for (size_t i = 0; i < shown; ++i) {
    const MethodTraceRecord& t = *longest[i];
    out += "\n" +
           fitWidth(humanDuration(t.durationNanos) + "  " + tables.methods[t.method].name + "  at " +
                        localDateTime(t.startNanos) + "  in " + threadLabel(tables.threads[t.thread]),
                    options.width) +
           "\n";
    for (const std::string& line : stackLines(tables, t.stack, options.stackDepth)) {
      out += fitWidth("    at " + line, options.width) + "\n";
    }
  }
  return out;
}

}  // namespace jfrbpf::view
