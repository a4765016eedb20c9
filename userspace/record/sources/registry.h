#pragma once
// The event sources of a recording: each unit in this folder, registered once in registry.cpp. To add one:
// its options in config.h, their parsing in cli/record_command.cpp, a unit here (event_source.h), and a line
// in eventSourcesOf (README.md).
#include <memory>
#include <vector>

#include "userspace/record/config.h"
#include "userspace/record/sources/event_source.h"

namespace jfrbpf::record {

using EventSources = std::vector<std::unique_ptr<EventSource>>;

// The sources `config` asks for, in the order their summary lines are printed.
EventSources eventSourcesOf(const RecordConfig& config);

// The JFR settings (jdk.ActiveSetting) of what a recording writes: those of its CPU samples (config.h) and
// of its sources' events (each source knows its own).
std::vector<jfr::Setting> recordingSettings(const RecordConfig& config, const EventSources& sources);

// The JFR file of a recording with `config` at `path`.
jfr::RecordingOptions recordingOptions(const RecordConfig& config, const EventSources& sources, const std::string& path);

// The BPF sampler a recording with `config` and its sources needs.
SamplerConfig samplerConfigOf(const RecordConfig& config, const EventSources& sources);

}  // namespace jfrbpf::record
