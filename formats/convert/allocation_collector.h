#pragma once
// Reads jdk.ObjectAllocationSample events into a Profile weighted by bytes: an event stands for its weight
// (what its thread allocated since its previous sample, not the one object), so groups add up weights. Each
// stack is topped by the allocated class (FrameKind::kAllocatedClass, "byte[]"), as async-profiler draws its
// allocation profiles: a method's box is what it allocated, the tips above it say of which classes.
#include <cstdint>

#include "formats/convert/profile.h"
#include "formats/convert/profile_builder.h"
#include "formats/convert/sample_collector.h"
#include "formats/jfr/reader/recording.h"

namespace jfrbpf::convert {

inline constexpr const char* kAllocationSampleEvent = "jdk.ObjectAllocationSample";

// Feeds on the events of one pass over a recording (see collect), like SampleCollector.
class AllocationCollector {
 public:
  AllocationCollector(const jfr::reader::Recording& recording, SampleFilter filter);

  bool wants(const jfr::reader::TypeInfo& type) const { return type.name == kAllocationSampleEvent; }
  void beginChunk(const jfr::reader::Chunk&) { builder_.beginChunk(); }
  void add(const jfr::reader::RecordedEvent& event);
  // The profile (TimeKind::kAlloc: SampleGroup::cpuNanos holds bytes); the collector is spent afterwards.
  Profile finish();

  uint64_t eventsSeen() const { return seen_; }  // before filtering

 private:
  RecordingSpan span_;
  ProfileBuilder builder_;
  uint64_t seen_ = 0;
};

// One pass over `recording` with an AllocationCollector.
Profile loadAllocationProfile(const jfr::reader::Recording& recording, const SampleFilter& filter);

}  // namespace jfrbpf::convert
