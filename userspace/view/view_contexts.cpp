// contexts: CPU time by the OpenTelemetry context samples were taken in, one table per attribute key, and
// one of the traces.
#include <algorithm>
#include <map>
#include <set>

#include "base/number_text.h"
#include "userspace/view/method_stats.h"
#include "userspace/view/text_format.h"
#include "userspace/view/text_table.h"
#include "userspace/view/views.h"

namespace jfrbpf::view {
namespace {

using Align = TextTable::Align;

constexpr const char* kNoValue = "(none)";

struct ValueStat {
  uint64_t samples = 0;
  int64_t cpuNanos = 0;
  std::map<uint32_t, uint64_t> selfSamples;  // top method -> samples
};

// One table: the samples by their value of `key` ("trace" or an attribute's), the largest first.
std::string tableBy(const convert::Profile& profile, const std::string& key, const std::string& title,
                    const ViewOptions& options) {
  std::map<std::string, ValueStat> byValue;
  for (const convert::SampleGroup& group : profile.groups) {
    const std::string_view value = profile.contexts[group.context].value(key);
    ValueStat& stat = byValue[value.empty() ? kNoValue : std::string(value)];
    stat.samples += group.samples;
    stat.cpuNanos += group.cpuNanos;
    stat.selfSamples[profile.frameOf(group.node).method] += group.samples;
  }
  std::vector<std::pair<std::string, ValueStat>> rows(byValue.begin(), byValue.end());
  const bool byTime = profile.cpuTimeKnown;
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    return byTime ? a.second.cpuNanos > b.second.cpuNanos : a.second.samples > b.second.samples;
  });
  TextTable table(title + " (" + profile.eventName + ")", {{key == "trace" ? "Trace Id" : key},
                                                           {"Samples", Align::kRight},
                                                           {"Percent", Align::kRight},
                                                           {"CPU Time", Align::kRight},
                                                           {"Hottest Method (self)"}});
  for (size_t i = 0; i < rows.size() && i < options.top; ++i) {
    const auto& [value, stat] = rows[i];
    const auto hottest = std::max_element(stat.selfSamples.begin(), stat.selfSamples.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
    table.addRow({value, groupThousands(stat.samples),
                  percent(sharePercent(profile, stat.samples, stat.cpuNanos), 100.0),
                  byTime ? humanDuration(stat.cpuNanos) : "N/A", profile.methods[hottest->first].name});
  }
  std::string out = table.render(options.width);
  if (rows.size() > options.top) out += "(" + std::to_string(rows.size() - options.top) + " more; use --top N)\n";
  return out;
}

}  // namespace

std::string contextsView(const RecordingDigest& digest, const ViewOptions& options) {
  const convert::Profile& profile = digest.profile;
  if (profile.totalSamples == 0) return "\nNo CPU samples in " + digest.path + " match the filters.\n";
  std::set<std::string> keys;
  bool traces = false;
  for (const convert::ProfileContext& context : profile.contexts) {
    traces = traces || !context.traceId.empty();
    for (const auto& [key, value] : context.attributes) keys.insert(key);
  }
  if (keys.empty() && !traces) {
    return "\nNo sample was taken in an OpenTelemetry context:\nthe recorded processes publish none "
           "(docs/otel-context.md).\n";
  }
  std::string out;
  for (const std::string& key : keys) out += tableBy(profile, key, "CPU Time by " + key, options);
  if (traces) out += tableBy(profile, "trace", "CPU Time by Trace", options);
  return out;
}

}  // namespace jfrbpf::view
