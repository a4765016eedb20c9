#pragma once
// Reads the CPU samples of a recording into a Profile. jfrbpf and JDK 25 record jdk.CPUTimeSample; older
// JDKs (and JDK 25 by default) jdk.ExecutionSample. By default the first is used when present, else the
// second; any other event type with a stack trace can be asked for by name (jdk.NativeMethodSample, …).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "formats/convert/profile.h"
#include "formats/convert/profile_builder.h"
#include "formats/jfr/reader/recording.h"

namespace jfrbpf::convert {

inline constexpr const char* kCpuTimeSampleEvent = "jdk.CPUTimeSample";
inline constexpr const char* kExecutionSampleEvent = "jdk.ExecutionSample";

// The recording's span from its chunk headers, and the time grid its profiles use.
struct RecordingSpan {
  int64_t startNanos = 0;  // epoch
  int64_t endNanos = 0;
  int64_t gridNanos = 1;
  void stamp(Profile& profile) const;  // sets the profile's recording span
};
RecordingSpan recordingSpan(const jfr::reader::Recording& recording);

// A sample standing for more time than this is a corrupt value, not a measurement.
inline constexpr int64_t kMaxPeriodNanos = 1'000'000'000'000;
// A timespan of an event (samplingPeriod, weight, …) as a time to add up: 0 when absent, never negative, at
// most kMaxPeriodNanos.
int64_t sampleNanos(std::optional<int64_t> timespan);

struct SampleOptions {
  SampleFilter filter;
  std::string eventName;  // empty: automatic (see above)
};

// Feeds on the events of one pass over a recording (see scanRecording), so callers that need other events
// too read the file once.
class SampleCollector {
 public:
  SampleCollector(const jfr::reader::Recording& recording, SampleOptions options);
  ~SampleCollector();

  bool wants(const jfr::reader::TypeInfo& type) const;
  void beginChunk(const jfr::reader::Chunk& chunk);
  void add(const jfr::reader::RecordedEvent& event);

  // The chosen event's profile. Throws jfrbpf::Error (usage) if an event asked for by name is not in the
  // recording's metadata at all.
  Profile finish();

  // Events seen per sample event type, before filtering.
  const std::map<std::string, uint64_t>& eventCounts() const { return eventCounts_; }

 private:
  struct Source;
  Source* sourceFor(const std::string& eventName);

  SampleOptions options_;
  RecordingSpan span_;
  std::map<std::string, std::unique_ptr<Source>> sources_;
  std::map<std::string, int64_t> periods_;  // from jdk.ActiveSetting period/throttle, per event name
  std::map<std::string, uint64_t> eventCounts_;
  bool requestedEventDeclared_ = false;
  const jfr::reader::Chunk* chunk_ = nullptr;
};

// One pass over every chunk: `onChunk` before each chunk's events, `onEvent` for the events `filter`
// accepts. Errors name the file: "cannot read JFR recording app.jfr: … (the file is corrupt or truncated)".
void scanRecording(const jfr::reader::Recording& recording,
                   const std::function<void(const jfr::reader::Chunk&)>& onChunk,
                   const jfr::reader::EventCallback& onEvent, const jfr::reader::TypeFilter& filter);

// One pass over `recording` through a collector (SampleCollector, OffCpuCollector, AllocationCollector, or
// one of the callers' that feeds several): its wants, beginChunk and add; then what its finish returns.
template <class Collector>
decltype(auto) collect(const jfr::reader::Recording& recording, Collector& collector) {
  scanRecording(
      recording, [&](const jfr::reader::Chunk& chunk) { collector.beginChunk(chunk); },
      [&](const jfr::reader::RecordedEvent& event) { collector.add(event); },
      [&](const jfr::reader::TypeInfo& type) { return collector.wants(type); });
  return collector.finish();
}

Profile loadProfile(const jfr::reader::Recording& recording, const SampleOptions& options = {});

// "20 ms", "10ms", "1 s" -> nanoseconds; nullopt for anything else ("500/s", "everyChunk", "off").
std::optional<int64_t> parseSettingPeriod(std::string_view text);

}  // namespace jfrbpf::convert
