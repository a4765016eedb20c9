#include "formats/convert/sample_collector.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "base/error.h"
#include "formats/convert/saturating.h"
#include "formats/jfr/reader/chunk.h"

namespace jfrbpf::convert {
namespace {

using jfr::reader::RecordedEvent;
using jfr::reader::TypeInfo;

constexpr const char* kActiveSettingEvent = "jdk.ActiveSetting";
// Enough slots for a useful time filter, few enough to keep per-stack time lists short.
constexpr int64_t kGridSlotsWanted = 4096;
constexpr int64_t kMinGridNanos = 1'000'000;

bool hasStackTrace(const TypeInfo& type) { return type.fieldIndex("stackTrace").has_value(); }

}  // namespace

std::optional<int64_t> parseSettingPeriod(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  int64_t value = 0;
  if (digits == 0 || std::from_chars(text.data(), text.data() + digits, value).ec != std::errc()) return std::nullopt;
  std::string_view unit = text.substr(digits);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  int64_t scale = 0;
  if (unit == "ns") {
    scale = 1;
  } else if (unit == "us") {
    scale = 1'000;
  } else if (unit == "ms") {
    scale = 1'000'000;
  } else if (unit == "s") {
    scale = 1'000'000'000;
  } else if (unit == "m" || unit == "min") {
    scale = 60'000'000'000;
  }
  if (scale == 0 || value > std::numeric_limits<int64_t>::max() / scale) return std::nullopt;
  return value * scale;
}

struct SampleCollector::Source {
  Source(const SampleFilter& filter, int64_t gridStart, int64_t gridNanos) : builder(filter, gridStart, gridNanos) {}
  ProfileBuilder builder;
  bool perSamplePeriod = false;  // the event carries samplingPeriod
  bool chunkStarted = false;
  uint64_t failed = 0, biased = 0, truncated = 0;
};

RecordingSpan recordingSpan(const jfr::reader::Recording& recording) {
  RecordingSpan span;
  const auto& chunks = recording.chunks();
  if (!chunks.empty()) {
    span.startNanos = chunks.front().startNanos;
    span.endNanos = chunks.front().startNanos;
    for (const auto& chunk : chunks) {
      span.startNanos = std::min(span.startNanos, chunk.startNanos);
      if (chunk.durationNanos > 0 && chunk.startNanos <= std::numeric_limits<int64_t>::max() - chunk.durationNanos) {
        span.endNanos = std::max(span.endNanos, chunk.startNanos + chunk.durationNanos);
      }
    }
  }
  int64_t length = std::max<int64_t>(0, saturatingSub(span.endNanos, span.startNanos));
  span.gridNanos = std::max(kMinGridNanos, length / kGridSlotsWanted + 1);
  return span;
}

void RecordingSpan::stamp(Profile& profile) const {
  profile.recordingStartNanos = startNanos;
  profile.recordingEndNanos = endNanos;
}

int64_t sampleNanos(std::optional<int64_t> timespan) {
  return std::clamp<int64_t>(timespan.value_or(0), 0, kMaxPeriodNanos);
}

SampleCollector::SampleCollector(const jfr::reader::Recording& recording, SampleOptions options)
    : options_(std::move(options)), span_(recordingSpan(recording)) {}

SampleCollector::~SampleCollector() = default;

bool SampleCollector::wants(const TypeInfo& type) const {
  if (type.name == kActiveSettingEvent) return true;
  if (!hasStackTrace(type)) return false;
  if (!options_.eventName.empty()) return type.name == options_.eventName;
  return type.name == kCpuTimeSampleEvent || type.name == kExecutionSampleEvent;
}

void SampleCollector::beginChunk(const jfr::reader::Chunk& chunk) {
  chunk_ = &chunk;
  for (auto& [name, source] : sources_) source->chunkStarted = false;
  if (!options_.eventName.empty() && chunk.metadata().byName(options_.eventName)) requestedEventDeclared_ = true;
}

SampleCollector::Source* SampleCollector::sourceFor(const std::string& eventName) {
  auto& source = sources_[eventName];
  if (!source) source = std::make_unique<Source>(options_.filter, span_.startNanos, span_.gridNanos);
  if (!source->chunkStarted) {
    source->builder.beginChunk();
    source->chunkStarted = true;
  }
  return source.get();
}

void SampleCollector::add(const RecordedEvent& event) {
  const TypeInfo& type = event.type();
  if (type.name == kActiveSettingEvent) {
    std::string_view name = event.getString("name");
    if (name != "period" && name != "throttle") return;
    const TypeInfo* target = chunk_ ? chunk_->metadata().byId(event.getLong("id")) : nullptr;
    auto period = parseSettingPeriod(event.getString("value"));
    if (target && period && *period > 0) periods_[target->name] = std::min(*period, kMaxPeriodNanos);
    return;
  }
  ++eventCounts_[type.name];
  Source* source = sourceFor(type.name);
  auto sample = source->builder.select(event);
  if (!sample) return;
  auto period = event.timespanNanos("samplingPeriod");
  if (period) source->perSamplePeriod = true;
  if (event.getBool("failed")) ++source->failed;
  if (event.getBool("biased")) ++source->biased;
  if (jfr::reader::StackTraceView(event.get("stackTrace")).truncated()) ++source->truncated;
  source->builder.addSample(sample->thread, sample->node, event.startTimeNanos(), sampleNanos(period), sample->context);
}

Profile SampleCollector::finish() {
  std::string chosen = options_.eventName;
  if (chosen.empty()) {
    chosen = sources_.count(kCpuTimeSampleEvent) ? kCpuTimeSampleEvent : kExecutionSampleEvent;
  } else if (!requestedEventDeclared_) {
    throw Error("the recording has no event type " + options_.eventName +
                    " (see `jfr summary FILE` for the event types it has)",
                ErrorKind::Usage);
  }
  auto it = sources_.find(chosen);
  if (it == sources_.end()) {
    Profile empty = ProfileBuilder({}, span_.startNanos, span_.gridNanos).finish();
    empty.eventName = options_.eventName;
    span_.stamp(empty);
    return empty;
  }
  Source& source = *it->second;
  Profile profile = source.builder.finish();
  profile.eventName = chosen;
  span_.stamp(profile);
  profile.failedSamples = source.failed;
  profile.biasedSamples = source.biased;
  profile.truncatedSamples = source.truncated;
  profile.cpuTimeKnown = source.perSamplePeriod;
  auto period = periods_.find(chosen);
  if (!source.perSamplePeriod && period != periods_.end()) {
    // Periodic samplers (jdk.ExecutionSample) take one sample per period of running: each stands for it.
    profile.totalCpuNanos = 0;
    for (SampleGroup& group : profile.groups) {
      group.cpuNanos = saturatingMul(static_cast<int64_t>(group.samples), period->second);
      for (TimeCount& t : group.times) t.nanos = saturatingMul(static_cast<int64_t>(t.samples), period->second);
      for (SampleEvent& e : group.events) e.value = period->second;
      profile.totalCpuNanos = saturatingAdd(profile.totalCpuNanos, group.cpuNanos);
    }
    profile.cpuTimeKnown = true;
    profile.settingPeriodNanos = period->second;
  }
  return profile;
}

void scanRecording(const jfr::reader::Recording& recording,
                   const std::function<void(const jfr::reader::Chunk&)>& onChunk,
                   const jfr::reader::EventCallback& onEvent, const jfr::reader::TypeFilter& filter) {
  recording.forEachChunk([&](const jfr::reader::Chunk& chunk) {
    onChunk(chunk);
    try {
      chunk.forEachEvent(onEvent, filter);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Runtime) throw;
      throw Error("cannot read JFR recording " + recording.name() + ": " + e.what() +
                  " (the file is corrupt or truncated)");
    }
  });
}

Profile loadProfile(const jfr::reader::Recording& recording, const SampleOptions& options) {
  SampleCollector collector(recording, options);
  return collect(recording, collector);
}

}  // namespace jfrbpf::convert
