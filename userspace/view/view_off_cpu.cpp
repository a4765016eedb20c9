// off-cpu: where threads waited (jfrbpf.OffCPUSample), by method, by kernel function, by state and by thread,
// each by off-CPU time: the sum of the samples' weights, not their number, since a sample stands for the
// off-CPU time it was picked for.
#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "formats/convert/saturating.h"
#include "userspace/view/method_stats.h"
#include "userspace/view/text_format.h"
#include "userspace/view/text_table.h"
#include "userspace/view/views.h"
#include "userspace/view/weight_table.h"

namespace jfrbpf::view {
namespace {

using Align = TextTable::Align;

// Row labels for stacks without such a frame; every stack has a row, so the shares add up to 100 %.
constexpr std::string_view kKernelFramesOnly = "[kernel frames only]";
constexpr std::string_view kNoKernelFrame = "[no kernel frame]";

// Where a stack waited: the method it waited in (its innermost Java frame, else its innermost native frame
// outside the kernel) and the kernel function it slept in (its innermost kernel frame).
struct WaitSite {
  std::optional<uint32_t> method;
  std::optional<uint32_t> kernel;
};

WaitSite waitSite(const convert::Profile& profile, uint32_t node) {
  WaitSite site;
  std::optional<uint32_t> native;
  for (; node != 0 && !site.method; node = profile.nodes[node].parent) {
    const convert::ProfileFrame& frame = profile.frameOf(node);
    if (frame.kind == convert::FrameKind::kKernel) {
      if (!site.kernel) site.kernel = frame.method;
    } else if (profile.methods[frame.method].java) {
      site.method = frame.method;
    } else if (!native) {
      native = frame.method;
    }
  }
  if (!site.method) site.method = native;
  return site;
}

// A table of names by off-CPU time, longest first.
std::string timeTable(const std::string& title, const std::string& firstColumn,
                      const std::map<std::string_view, WeightTotals>& byName, int64_t total,
                      const ViewOptions& options) {
  return weightTable(title, {{firstColumn}}, {"Off-CPU Time", humanDuration}, rowsByName(byName), total, options);
}

std::string byState(const OffCpuDigest& offCpu, const ViewOptions& options) {
  const int64_t total = offCpu.profile.totalCpuNanos;
  TextTable table("Off-CPU Time by State", {{"State"},
                                            {"Off-CPU Time", Align::kRight},
                                            {"Percent", Align::kRight},
                                            {"Samples", Align::kRight},
                                            {"Run Delay", Align::kRight}});
  for (size_t i = 0; i < offCpu.states.size() && i < options.top; ++i) {
    const convert::OffCpuState& s = offCpu.states[i];
    table.addRow({s.name, humanDuration(s.nanos), weightShare(s.nanos, total), groupThousands(s.events),
                  humanDuration(s.runDelayNanos)});
  }
  return table.render(options.width);
}

// The kernel's accounting of a thread's time (jfrbpf.ThreadCPUTime), "-" where the file has none.
std::string kernelTime(const std::map<int64_t, int64_t>& nanos, int64_t osThreadId, int64_t minus = 0) {
  auto it = nanos.find(osThreadId);
  return it == nanos.end() ? "-" : humanDuration(std::max<int64_t>(0, convert::saturatingSub(it->second, minus)));
}

// Off-CPU time per thread, next to the kernel's (wall minus CPU time) where the file has it, which the samples'
// weights stand for; and the thread's CPU time: the kernel's where the file has it, else what its CPU samples
// stand for.
std::string byThread(const RecordingDigest& digest, const ViewOptions& options) {
  const convert::Profile& profile = digest.offCpu.profile;
  std::vector<WeightTotals> totals(profile.threads.size());
  for (const convert::SampleGroup& group : profile.groups) totals[group.thread].add(group);
  // Virtual threads (a server may run a hundred thousand) share one row, as in the threads view.
  constexpr uint32_t kVirtualThreads = UINT32_MAX;
  WeightTotals virtualTotals;
  size_t virtualThreads = 0;
  std::vector<uint32_t> threads;
  for (uint32_t t = 0; t < totals.size(); ++t) {
    if (totals[t].samples == 0) continue;
    if (!profile.threads[t].isVirtual) {
      threads.push_back(t);
      continue;
    }
    ++virtualThreads;
    virtualTotals.weight += totals[t].weight;
    virtualTotals.samples += totals[t].samples;
  }
  if (virtualThreads > 0) threads.push_back(kVirtualThreads);
  const auto totalsOf = [&](uint32_t t) -> const WeightTotals& {
    return t == kVirtualThreads ? virtualTotals : totals[t];
  };
  std::stable_sort(threads.begin(), threads.end(),
                   [&](uint32_t a, uint32_t b) { return totalsOf(a).weight > totalsOf(b).weight; });

  const bool kernelCpu = !digest.kernelCpuNanos.empty();
  const bool sampledCpu = !kernelCpu && digest.profile.cpuTimeKnown && digest.profile.totalSamples > 0;
  std::map<std::string, int64_t> sampledCpuByThread;
  if (sampledCpu) {
    for (const ThreadStat& s : threadStats(digest.profile)) {
      sampledCpuByThread[threadKey(digest.profile.threads[s.thread])] = s.cpuNanos;
    }
  }
  const bool showLost = !digest.offCpu.losses.empty();
  std::map<std::string, LossTotals> lost = lossesByThread(digest.offCpu.losses, digest.lossThreads);

  const bool kernelOffCpu = kernelCpu && !digest.kernelWallNanos.empty();
  std::vector<TextTable::Column> columns = {
      {"Thread"}, {"TID", Align::kRight}, {"Off-CPU Time", Align::kRight}, {"Percent", Align::kRight}};
  if (kernelOffCpu) columns.push_back({"Kernel Off-CPU", Align::kRight});
  if (kernelCpu) columns.push_back({"Kernel CPU", Align::kRight});
  if (sampledCpu) columns.push_back({"Sampled CPU", Align::kRight});
  if (showLost) columns.push_back({"Lost Samples", Align::kRight});
  TextTable table("Off-CPU Time by Thread", columns);
  for (size_t i = 0; i < threads.size() && i < options.top; ++i) {
    if (threads[i] == kVirtualThreads) {
      // Unmounted, no OS thread waits for them: the kernel's columns are the carriers'.
      std::vector<std::string> row = {"virtual threads (" + groupThousands(virtualThreads) + ")", "",
                                      humanDuration(virtualTotals.weight),
                                      weightShare(virtualTotals.weight, profile.totalCpuNanos)};
      row.resize(columns.size(), "-");
      table.addRow(std::move(row));
      continue;
    }
    const convert::ProfileThread& t = profile.threads[threads[i]];
    std::vector<std::string> row = {t.name, t.osThreadId ? std::to_string(t.osThreadId) : "",
                                    humanDuration(totals[threads[i]].weight),
                                    weightShare(totals[threads[i]].weight, profile.totalCpuNanos)};
    if (kernelOffCpu) {
      auto cpu = digest.kernelCpuNanos.find(t.osThreadId);
      row.push_back(cpu == digest.kernelCpuNanos.end() ? "-"
                                                       : kernelTime(digest.kernelWallNanos, t.osThreadId, cpu->second));
    }
    if (kernelCpu) row.push_back(kernelTime(digest.kernelCpuNanos, t.osThreadId));
    if (sampledCpu) {
      auto sampled = sampledCpuByThread.find(threadKey(t));
      row.push_back(humanDuration(sampled == sampledCpuByThread.end() ? 0 : sampled->second));
    }
    if (showLost) {
      auto it = lost.find(threadKey(t));
      row.push_back(groupThousands(it == lost.end() ? 0 : static_cast<uint64_t>(it->second.samples)));
    }
    table.addRow(std::move(row));
  }
  return table.render(options.width) + moreRowsLine(threads.size(), options, "threads");
}

}  // namespace

std::string offCpuSamplesLine(const RecordingDigest& digest) {
  const convert::Profile& p = digest.offCpu.profile;
  return groupThousands(p.totalSamples) + ", " + humanDuration(p.totalCpuNanos) + " of off-CPU time";
}

std::string offCpuLostLine(const RecordingDigest& digest) {
  LossTotals lost = lossTotals(digest.offCpu.losses);
  if (lost.samples == 0) return "0";
  return lostShare(lost.samples, digest.offCpu.profile.totalSamples) + ", " + humanDuration(lost.nanos) +
         " of off-CPU time";
}

std::string offCpuView(const RecordingDigest& digest, const ViewOptions& options) {
  const OffCpuDigest& offCpu = digest.offCpu;
  const convert::Profile& profile = offCpu.profile;
  if (offCpu.eventsSeen == 0 || profile.totalSamples == 0) {
    std::string what = "No off-CPU samples (" + std::string(convert::kOffCpuSampleEvent) + " events) in " + digest.path;
    std::string why = offCpu.eventsSeen == 0 ? " (record with jfrbpf record --off-cpu)" : " match the filters";
    return "\n" + fitWidth(what + why + ".", options.width) + "\n";
  }
  std::string out = heading("Off-CPU Time (" + std::string(convert::kOffCpuSampleEvent) + ")");
  out += formLine("Samples", offCpuSamplesLine(digest), options.width);
  out += formLine("Lost samples", offCpuLostLine(digest), options.width);

  std::map<std::string_view, WeightTotals> byMethod, byKernel;
  for (const convert::SampleGroup& group : profile.groups) {
    WaitSite site = waitSite(profile, group.node);
    byMethod[site.method ? std::string_view(profile.methods[*site.method].name) : kKernelFramesOnly].add(group);
    byKernel[site.kernel ? std::string_view(profile.methods[*site.kernel].name) : kNoKernelFrame].add(group);
  }
  out += timeTable("Off-CPU Time by Method (innermost Java frame, else native)", "Method", byMethod,
                   profile.totalCpuNanos, options);
  out += timeTable("Off-CPU Time by Kernel Function (where it slept)", "Kernel Function", byKernel,
                   profile.totalCpuNanos, options);
  out += byState(offCpu, options);
  out += byThread(digest, options);
  return out;
}

}  // namespace jfrbpf::view
