#pragma once
// Reads jfrbpf.OffCPUSample events into a Profile weighted by off-CPU time: an event stands for its weight
// (the off-CPU time it was picked for, not one interval), so groups add up weights. For a wall-clock profile
// the CPU samples (jdk.CPUTimeSample, each standing for its samplingPeriod of CPU time) join them in the same
// call tree, each stack topped by a frame that says where its time went: "[on CPU]" or "[off CPU: STATE]".
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/convert/profile.h"
#include "formats/convert/profile_builder.h"
#include "formats/convert/sample_collector.h"
#include "formats/jfr/reader/recording.h"

namespace jfrbpf::convert {

inline constexpr const char* kOffCpuSampleEvent = "jfrbpf.OffCPUSample";
inline constexpr const char* kOffCpuSamplesLostEvent = "jfrbpf.OffCPUSamplesLost";
inline constexpr std::string_view kOnCpuFrame = "[on CPU]";

// "sleeping" -> "[off CPU: sleeping]", the leaf frame of an off-CPU stack in a wall-clock profile.
std::string offCpuFrameName(std::string_view state);

// The off-CPU samples of one state ("sleeping", "uninterruptible", "preempted", "unknown") that the filters
// kept.
struct OffCpuState {
  std::string name;
  uint64_t events = 0;
  int64_t nanos = 0;          // off-CPU time: the sum of their weights
  int64_t runDelayNanos = 0;  // the sum of their run delays (time runnable, waiting for a CPU)
};

// Feeds on the events of one pass over a recording (see scanRecording), like SampleCollector.
class OffCpuCollector {
 public:
  // `kind` is TimeKind::kOffCpu (off-CPU samples alone) or TimeKind::kWall (with the CPU samples).
  OffCpuCollector(const jfr::reader::Recording& recording, SampleFilter filter, TimeKind kind);

  bool wants(const jfr::reader::TypeInfo& type) const;
  void beginChunk(const jfr::reader::Chunk&) { builder_.beginChunk(); }
  void add(const jfr::reader::RecordedEvent& event);
  // The profile; the collector's builder is spent afterwards (states and totals stay).
  Profile finish();

  // Per state, by off-CPU time, descending.
  std::vector<OffCpuState> states() const;
  uint64_t offCpuEventsSeen() const { return offCpuSeen_; }  // before filtering

 private:
  struct StateSlot {
    OffCpuState stats;
    uint32_t frame = 0;  // "[off CPU: STATE]", for wall-clock stacks
    uint32_t eventState = 0;
  };
  StateSlot& stateSlot(std::string_view name);

  TimeKind kind_;
  RecordingSpan span_;
  ProfileBuilder builder_;
  std::map<std::string, StateSlot, std::less<>> states_;  // looked up by the event's string, without a copy
  std::optional<uint32_t> onCpuFrame_;                    // interned with the first CPU sample
  uint64_t offCpuSeen_ = 0;
  uint64_t cpuSeen_ = 0;
};

// One pass over `recording` with an OffCpuCollector.
Profile loadTimeProfile(const jfr::reader::Recording& recording, const SampleFilter& filter, TimeKind kind);

// The time of a wall-clock profile's samples under "[on CPU]".
int64_t onCpuNanos(const Profile& profile);

}  // namespace jfrbpf::convert
