#include "formats/convert/allocation_collector.h"

#include <algorithm>

namespace jfrbpf::convert {

AllocationCollector::AllocationCollector(const jfr::reader::Recording& recording, SampleFilter filter)
    : span_(recordingSpan(recording)), builder_(std::move(filter), span_.startNanos, span_.gridNanos) {}

void AllocationCollector::add(const jfr::reader::RecordedEvent& event) {
  ++seen_;
  // The filters see the stack the JVM recorded, not the class frame put over it.
  auto sample = builder_.select(event);
  if (!sample) return;
  uint32_t node = builder_.onTop(sample->node, builder_.allocatedClass(event.getObject("objectClass")));
  // A weight is a count of bytes: a negative one is corrupt, and counts for nothing.
  int64_t bytes = std::max<int64_t>(0, event.getLong("weight"));
  builder_.addSample(sample->thread, node, event.startTimeNanos(), bytes, sample->context);
}

Profile AllocationCollector::finish() {
  Profile profile = builder_.finish();
  profile.timeKind = TimeKind::kAlloc;
  profile.cpuTimeKnown = true;  // every sample says what it stands for
  if (seen_ > 0) profile.eventName = kAllocationSampleEvent;
  span_.stamp(profile);
  return profile;
}

Profile loadAllocationProfile(const jfr::reader::Recording& recording, const SampleFilter& filter) {
  AllocationCollector collector(recording, filter);
  return collect(recording, collector);
}

}  // namespace jfrbpf::convert
