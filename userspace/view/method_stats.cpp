#include "userspace/view/method_stats.h"

#include <algorithm>
#include <map>

#include "formats/convert/saturating.h"
#include "userspace/view/text_format.h"

namespace jfrbpf::view {

double sharePercent(const convert::Profile& profile, uint64_t samples, int64_t cpuNanos) {
  if (profile.cpuTimeKnown && profile.totalCpuNanos > 0) {
    return 100.0 * static_cast<double>(cpuNanos) / static_cast<double>(profile.totalCpuNanos);
  }
  if (profile.totalSamples == 0) return 0;
  return 100.0 * static_cast<double>(samples) / static_cast<double>(profile.totalSamples);
}

std::string lostShare(int64_t lost, uint64_t recorded) {
  auto taken = static_cast<double>(recorded) + static_cast<double>(lost);
  return groupThousands(static_cast<uint64_t>(std::max<int64_t>(0, lost))) + " (" +
         percent(static_cast<double>(lost), taken) + " of samples taken)";
}

std::vector<MethodStat> methodStats(const convert::Profile& profile) {
  std::vector<MethodStat> stats(profile.methods.size());
  for (uint32_t m = 0; m < stats.size(); ++m) stats[m].method = m;
  // A method recursing on one stack counts once: remember the last group that counted it.
  std::vector<size_t> countedIn(profile.methods.size(), SIZE_MAX);
  for (size_t g = 0; g < profile.groups.size(); ++g) {
    const convert::SampleGroup& group = profile.groups[g];
    if (group.node == 0) continue;
    MethodStat& top = stats[profile.frameOf(group.node).method];
    top.selfSamples += group.samples;
    top.selfCpuNanos = convert::saturatingAdd(top.selfCpuNanos, group.cpuNanos);
    for (uint32_t node = group.node; node != 0; node = profile.nodes[node].parent) {
      uint32_t method = profile.frameOf(node).method;
      if (countedIn[method] == g) continue;
      countedIn[method] = g;
      stats[method].totalSamples += group.samples;
      stats[method].totalCpuNanos = convert::saturatingAdd(stats[method].totalCpuNanos, group.cpuNanos);
    }
  }
  std::erase_if(stats, [](const MethodStat& s) { return s.totalSamples == 0; });
  const bool byTime = profile.cpuTimeKnown;
  std::stable_sort(stats.begin(), stats.end(), [byTime](const MethodStat& a, const MethodStat& b) {
    if (byTime && a.selfCpuNanos != b.selfCpuNanos) return a.selfCpuNanos > b.selfCpuNanos;
    if (byTime && a.totalCpuNanos != b.totalCpuNanos) return a.totalCpuNanos > b.totalCpuNanos;
    return a.selfSamples != b.selfSamples ? a.selfSamples > b.selfSamples : a.totalSamples > b.totalSamples;
  });
  return stats;
}

std::vector<ThreadStat> threadStats(const convert::Profile& profile) {
  std::vector<ThreadStat> stats(profile.threads.size());
  std::vector<std::map<uint32_t, uint64_t>> selfByMethod(profile.threads.size());
  for (const convert::SampleGroup& group : profile.groups) {
    ThreadStat& s = stats[group.thread];
    s.thread = group.thread;
    s.samples += group.samples;
    s.cpuNanos = convert::saturatingAdd(s.cpuNanos, group.cpuNanos);
    s.hasSamples = true;
    if (group.node != 0) selfByMethod[group.thread][profile.frameOf(group.node).method] += group.samples;
  }
  for (size_t t = 0; t < stats.size(); ++t) {
    uint64_t best = 0;
    for (const auto& [method, samples] : selfByMethod[t]) {
      if (samples > best) {
        best = samples;
        stats[t].hottestMethod = method;
      }
    }
  }
  std::erase_if(stats, [](const ThreadStat& s) { return !s.hasSamples; });
  const bool byTime = profile.cpuTimeKnown;
  std::stable_sort(stats.begin(), stats.end(), [byTime](const ThreadStat& a, const ThreadStat& b) {
    return byTime && a.cpuNanos != b.cpuNanos ? a.cpuNanos > b.cpuNanos : a.samples > b.samples;
  });
  return stats;
}

VirtualThreadsStat virtualThreadsStat(const convert::Profile& profile) {
  VirtualThreadsStat all;
  all.stat.thread = kAllVirtualThreads;
  std::vector<bool> counted(profile.threads.size());
  std::map<uint32_t, uint64_t> selfByMethod;
  for (const convert::SampleGroup& group : profile.groups) {
    if (!profile.threads[group.thread].isVirtual) continue;
    if (!counted[group.thread]) {
      counted[group.thread] = true;
      ++all.threads;
    }
    all.stat.samples += group.samples;
    all.stat.cpuNanos = convert::saturatingAdd(all.stat.cpuNanos, group.cpuNanos);
    all.stat.hasSamples = true;
    if (group.node != 0) selfByMethod[profile.frameOf(group.node).method] += group.samples;
  }
  uint64_t best = 0;
  for (const auto& [method, samples] : selfByMethod) {
    if (samples > best) {
      best = samples;
      all.stat.hottestMethod = method;
    }
  }
  return all;
}

std::string threadLabel(const convert::ProfileThread& thread) {
  if (thread.osThreadId == 0 || thread.name.starts_with("[tid ")) return thread.name;
  return thread.name + " (tid " + std::to_string(thread.osThreadId) + ")";
}

std::string threadKey(const convert::ProfileThread& thread) {
  return std::to_string(thread.osThreadId) + '/' + std::to_string(thread.javaThreadId) + '/' + thread.name;
}

std::vector<std::string> stackLines(const convert::Profile& profile, uint32_t node, size_t depth) {
  std::vector<std::string> lines;
  size_t shown = 0;
  for (; node != 0 && shown < depth; node = profile.nodes[node].parent, ++shown) {
    const convert::ProfileFrame& frame = profile.frameOf(node);
    std::string line = profile.methods[frame.method].name;
    if (frame.line > 0) line += " line: " + std::to_string(frame.line);
    if (frame.kind != convert::FrameKind::kUnknown) line += " " + std::string(convert::frameKindTag(frame.kind));
    lines.push_back(std::move(line));
  }
  if (node != 0) lines.push_back("... (" + std::to_string(profile.nodes[node].depth) + " more)");
  return lines;
}

}  // namespace jfrbpf::view
