// allocation: what threads allocated (jdk.ObjectAllocationSample), by class, by allocation site and by thread,
// each by bytes: the sum of the samples' weights, not their number, since a sample stands for what its thread
// allocated since its previous sample (a thread allocating 1 MB between samples weighs 1 MB in one of them).
#include <algorithm>
#include <map>
#include <string_view>

#include "userspace/view/text_format.h"
#include "userspace/view/text_table.h"
#include "userspace/view/views.h"
#include "userspace/view/weight_table.h"

namespace jfrbpf::view {
namespace {

std::string bytes(int64_t amount) { return humanBytes(static_cast<uint64_t>(std::max<int64_t>(0, amount))); }

const WeightColumn kAllocated{"Allocated", bytes};

// Bytes per thread.
std::string byThread(const convert::Profile& profile, const ViewOptions& options) {
  return weightTable("Allocation by Thread", {{"Thread"}, {"TID", TextTable::Align::kRight}}, kAllocated,
                     rowsByThread(profile), profile.totalCpuNanos, options, "threads");
}

}  // namespace

std::string allocationSamplesLine(const RecordingDigest& digest) {
  const convert::Profile& p = digest.allocation.profile;
  return groupThousands(p.totalSamples) + ", " + bytes(p.totalCpuNanos) + " allocated";
}

std::string allocationView(const RecordingDigest& digest, const ViewOptions& options) {
  const AllocationDigest& allocation = digest.allocation;
  const convert::Profile& profile = allocation.profile;
  if (allocation.eventsSeen == 0 || profile.totalSamples == 0) {
    std::string what =
        "No allocation samples (" + std::string(convert::kAllocationSampleEvent) + " events) in " + digest.path;
    std::string why = allocation.eventsSeen == 0 ? " (record with jfrbpf record --alloc)" : " match the filters";
    return "\n" + fitWidth(what + why + ".", options.width) + "\n";
  }
  std::string out = heading("Allocation (" + std::string(convert::kAllocationSampleEvent) + ")");
  out += formLine("Samples", allocationSamplesLine(digest), options.width);

  // Each stack's leaf is the allocated class; the frame below it, the allocation site.
  std::map<std::string_view, WeightTotals> byClass, bySite;
  for (const convert::SampleGroup& group : profile.groups) {
    if (group.node == 0) continue;
    byClass[profile.methodOf(group.node).name].add(group);
    uint32_t site = profile.nodes[group.node].parent;
    bySite[site != 0 ? std::string_view(profile.methodOf(site).name) : kNoSite].add(group);
  }
  out += weightTable("Allocation by Class", {{"Object Type"}}, kAllocated, rowsByName(byClass), profile.totalCpuNanos,
                     options);
  out += weightTable("Allocation by Site (top frame)", {{"Method"}}, kAllocated, rowsByName(bySite),
                     profile.totalCpuNanos, options);
  out += byThread(profile, options);
  return out;
}

}  // namespace jfrbpf::view
