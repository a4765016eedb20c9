#include "formats/convert/off_cpu_collector.h"

#include <algorithm>

#include "formats/convert/saturating.h"
#include "formats/jfr/reader/chunk.h"

namespace jfrbpf::convert {

std::string offCpuFrameName(std::string_view state) { return "[off CPU: " + std::string(state) + "]"; }

OffCpuCollector::OffCpuCollector(const jfr::reader::Recording& recording, SampleFilter filter, TimeKind kind)
    : kind_(kind), span_(recordingSpan(recording)), builder_(std::move(filter), span_.startNanos, span_.gridNanos) {}

bool OffCpuCollector::wants(const jfr::reader::TypeInfo& type) const {
  return type.name == kOffCpuSampleEvent || (kind_ == TimeKind::kWall && type.name == kCpuTimeSampleEvent);
}

OffCpuCollector::StateSlot& OffCpuCollector::stateSlot(std::string_view name) {
  if (name.empty()) name = "unknown";
  auto it = states_.find(name);
  if (it == states_.end()) {
    it = states_.emplace(std::string(name), StateSlot{}).first;
    it->second.stats.name = std::string(name);
    if (kind_ == TimeKind::kWall) it->second.frame = builder_.syntheticFrame(offCpuFrameName(name));
    it->second.eventState = builder_.eventState(name);
  }
  return it->second;
}

void OffCpuCollector::add(const jfr::reader::RecordedEvent& event) {
  const bool offCpu = event.type().name == kOffCpuSampleEvent;
  ++(offCpu ? offCpuSeen_ : cpuSeen_);
  auto sample = builder_.select(event);
  if (!sample) return;
  uint32_t node = sample->node;
  int64_t nanos = 0;
  uint32_t stateIndex = 0;
  if (offCpu) {
    // The duration stands in for a missing weight: that is what an event of an unsampled interval weighs.
    auto weight = event.timespanNanos("weight");
    nanos = sampleNanos(weight ? weight : event.durationNanos());
    StateSlot& state = stateSlot(event.getString("state"));
    state.stats.events += 1;
    state.stats.nanos = saturatingAdd(state.stats.nanos, nanos);
    state.stats.runDelayNanos = saturatingAdd(state.stats.runDelayNanos, sampleNanos(event.timespanNanos("runDelay")));
    if (kind_ == TimeKind::kWall) node = builder_.onTop(node, state.frame);
    stateIndex = state.eventState;
  } else {
    nanos = sampleNanos(event.timespanNanos("samplingPeriod"));
    if (!onCpuFrame_) onCpuFrame_ = builder_.syntheticFrame(kOnCpuFrame);
    node = builder_.onTop(node, *onCpuFrame_);
  }
  builder_.addSample(sample->thread, node, event.startTimeNanos(), nanos, sample->context, stateIndex);
}

Profile OffCpuCollector::finish() {
  Profile profile = builder_.finish();
  profile.timeKind = kind_;
  profile.cpuTimeKnown = true;  // every sample says what time it stands for
  if (kind_ == TimeKind::kWall && cpuSeen_ > 0) {
    profile.eventName = offCpuSeen_ > 0 ? std::string(kCpuTimeSampleEvent) + " + " + kOffCpuSampleEvent
                                        : std::string(kCpuTimeSampleEvent);
  } else if (offCpuSeen_ > 0) {
    profile.eventName = kOffCpuSampleEvent;
  }
  span_.stamp(profile);
  return profile;
}

Profile loadTimeProfile(const jfr::reader::Recording& recording, const SampleFilter& filter, TimeKind kind) {
  OffCpuCollector collector(recording, filter, kind);
  return collect(recording, collector);
}

int64_t onCpuNanos(const Profile& profile) {
  int64_t sum = 0;
  for (const SampleGroup& group : profile.groups) {
    if (group.node != 0 && profile.methodOf(group.node).name == kOnCpuFrame) sum = saturatingAdd(sum, group.cpuNanos);
  }
  return sum;
}

std::vector<OffCpuState> OffCpuCollector::states() const {
  std::vector<OffCpuState> out;
  for (const auto& [name, slot] : states_) out.push_back(slot.stats);
  std::stable_sort(out.begin(), out.end(),
                   [](const OffCpuState& a, const OffCpuState& b) { return a.nanos > b.nanos; });
  return out;
}

}  // namespace jfrbpf::convert
