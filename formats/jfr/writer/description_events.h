#pragma once
// The events that describe a recording rather than the profiled program — jdk.ActiveRecording,
// jdk.ActiveSetting, jdk.OSInformation, jdk.CPUInformation, jdk.JVMInformation — written into every chunk
// so that each chunk can be read on its own.
#include <cstdint>
#include <span>
#include <utility>

#include "formats/jfr/writer/byte_buffer.h"
#include "formats/jfr/writer/system_info.h"
#include "formats/jfr/writer/type_ids.h"
#include "formats/jfr/writer/types.h"

namespace jfrbpf::jfr {

inline constexpr uint64_t kFirstEventType = kCpuTimeSampleEvent, kLastEventType = kThreadParkEvent;
static_assert(kLastEventType - kFirstEventType < 32);
// A bit per event type, for sets of event types.
constexpr uint32_t eventBit(uint64_t type) { return 1u << (type - kFirstEventType); }

struct RecordingDescription {
  const RecordingOptions& options;
  std::span<const std::pair<TypeId, Setting>> settings;  // the caller's, with resolved event type ids
  uint32_t implicitlyEnabled;                            // eventBit()s of types to report as enabled=true
  const SystemInfo& system;
  int64_t recordingStartMillis;
};

void writeDescriptionEvents(ByteBuffer& out, Ticks at, const RecordingDescription& description);

}  // namespace jfrbpf::jfr
