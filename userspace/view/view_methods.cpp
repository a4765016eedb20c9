// hot-methods and cpu-time-hot-methods.
#include <algorithm>
#include <map>

#include "userspace/view/method_stats.h"
#include "userspace/view/text_format.h"
#include "userspace/view/text_table.h"
#include "userspace/view/views.h"

namespace jfrbpf::view {
namespace {

using Align = TextTable::Align;

std::string noSamples(const RecordingDigest& digest) {
  if (digest.profile.eventName.empty()) {
    return "\nNo CPU samples in " + digest.path + " (neither jdk.CPUTimeSample nor jdk.ExecutionSample events).\n";
  }
  return "\nNo " + digest.profile.eventName + " events in " + digest.path + " match the filters.\n";
}

}  // namespace

std::string hotMethodsView(const RecordingDigest& digest, const ViewOptions& options) {
  const convert::Profile& profile = digest.profile;
  if (profile.totalSamples == 0) return noSamples(digest);
  TextTable table("Hot Methods (" + profile.eventName + ", " + groupThousands(profile.totalSamples) + " samples)",
                  {{"Method"},
                   {"Self", Align::kRight},
                   {"Self %", Align::kRight},
                   {"Total", Align::kRight},
                   {"Total %", Align::kRight}});
  std::vector<MethodStat> stats = methodStats(profile);
  for (size_t i = 0; i < stats.size() && i < options.top; ++i) {
    const MethodStat& s = stats[i];
    table.addRow({profile.methods[s.method].name, groupThousands(s.selfSamples),
                  percent(sharePercent(profile, s.selfSamples, s.selfCpuNanos), 100.0), groupThousands(s.totalSamples),
                  percent(sharePercent(profile, s.totalSamples, s.totalCpuNanos), 100.0)});
  }
  return table.render(options.width);
}

std::string cpuTimeHotMethodsView(const RecordingDigest& digest, const ViewOptions& options) {
  const convert::Profile& profile = digest.profile;
  if (profile.eventName != convert::kCpuTimeSampleEvent) {
    return "\nNo jdk.CPUTimeSample events in " + digest.path +
           " (record with jfrbpf, or with JDK 25 and jdk.CPUTimeSample#enabled=true); "
           "`jfrbpf view hot-methods` shows the samples it has.\n";
  }
  if (profile.totalSamples == 0) return noSamples(digest);
  std::map<uint32_t, uint64_t> byTopFrame;
  for (const convert::SampleGroup& group : profile.groups)
    byTopFrame[profile.frameOf(group.node).method] += group.samples;
  std::vector<std::pair<uint32_t, uint64_t>> rows(byTopFrame.begin(), byTopFrame.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  TextTable table("Java Methods that Execute the Most from CPU Time Sampler",
                  {{"Method"}, {"Samples", Align::kRight}, {"Percent", Align::kRight}});
  for (size_t i = 0; i < rows.size() && i < options.top; ++i) {
    table.addRow({profile.methods[rows[i].first].name, groupThousands(rows[i].second),
                  percent(static_cast<double>(rows[i].second), static_cast<double>(profile.totalSamples))});
  }
  return table.render(options.width);
}

}  // namespace jfrbpf::view
