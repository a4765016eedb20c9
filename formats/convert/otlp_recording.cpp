#include "formats/convert/otlp_recording.h"

#include <optional>

#include "formats/convert/allocation_collector.h"
#include "formats/convert/lock_collector.h"
#include "formats/convert/off_cpu_collector.h"

namespace jfrbpf::convert {
namespace {

// The collectors of the kinds asked for, fed from one pass.
class OtlpKindsCollector {
 public:
  OtlpKindsCollector(const jfr::reader::Recording& recording, const SampleOptions& options,
                     std::span<const TimeKind> kinds)
      : kinds_(kinds.begin(), kinds.end()) {
    SampleOptions kept = options;
    kept.filter.keepEvents = true;
    for (TimeKind kind : kinds) {
      switch (kind) {
        case TimeKind::kCpu: cpu_.emplace(recording, kept); break;
        case TimeKind::kOffCpu: offCpu_.emplace(recording, kept.filter, kind); break;
        case TimeKind::kWall: wall_.emplace(recording, kept.filter, kind); break;
        case TimeKind::kAlloc: allocation_.emplace(recording, kept.filter); break;
        case TimeKind::kLock: locks_.emplace(recording, kept.filter); break;
      }
    }
  }

  bool wants(const jfr::reader::TypeInfo& type) const {
    return process_.wants(type) || (cpu_ && cpu_->wants(type)) || (offCpu_ && offCpu_->wants(type)) ||
           (wall_ && wall_->wants(type)) || (allocation_ && allocation_->wants(type)) ||
           (locks_ && locks_->wants(type));
  }

  void beginChunk(const jfr::reader::Chunk& chunk) {
    if (cpu_) cpu_->beginChunk(chunk);
    if (offCpu_) offCpu_->beginChunk(chunk);
    if (wall_) wall_->beginChunk(chunk);
    if (allocation_) allocation_->beginChunk(chunk);
    if (locks_) locks_->beginChunk(chunk);
  }

  void add(const jfr::reader::RecordedEvent& event) {
    const jfr::reader::TypeInfo& type = event.type();
    if (process_.wants(type)) process_.add(event);
    if (cpu_ && cpu_->wants(type)) cpu_->add(event);
    if (offCpu_ && offCpu_->wants(type)) offCpu_->add(event);
    if (wall_ && wall_->wants(type)) wall_->add(event);
    if (allocation_ && allocation_->wants(type)) allocation_->add(event);
    if (locks_ && locks_->wants(type)) locks_->add(event);
  }

  OtlpRecording finish() {
    OtlpRecording out;
    for (TimeKind kind : kinds_) {
      Profile profile = finishKind(kind);
      if (profile.totalSamples > 0) out.profiles.push_back(std::move(profile));
    }
    out.process = process_.finish();
    return out;
  }

 private:
  Profile finishKind(TimeKind kind) {
    switch (kind) {
      case TimeKind::kCpu: return cpu_->finish();
      case TimeKind::kOffCpu: return offCpu_->finish();
      case TimeKind::kWall: return wall_->finish();
      case TimeKind::kAlloc: return allocation_->finish();
      case TimeKind::kLock: return locks_->finish();
    }
    return {};
  }

  std::vector<TimeKind> kinds_;
  RecordedProcessCollector process_;
  std::optional<SampleCollector> cpu_;
  std::optional<OffCpuCollector> offCpu_, wall_;
  std::optional<AllocationCollector> allocation_;
  std::optional<LockCollector> locks_;
};

}  // namespace

OtlpRecording loadOtlpRecording(const jfr::reader::Recording& recording, const SampleOptions& options,
                                std::span<const TimeKind> kinds) {
  OtlpKindsCollector collector(recording, options, kinds);
  return collect(recording, collector);
}

}  // namespace jfrbpf::convert
