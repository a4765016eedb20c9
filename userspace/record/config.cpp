#include "userspace/record/config.h"

#include "formats/jfr/writer/durations.h"

namespace jfrbpf::record {

jfr::RecordingOptions recordingOptions(const RecordConfig& config, const std::string& path) {
  jfr::RecordingOptions options;
  options.path = path;
  options.owner = config.outputOwner;
  options.settings = recordingSettings(config);
  options.maxChunkAge = config.flushNs;
  options.sampleEvents = config.sampleEvents;
  return options;
}

std::vector<jfr::Setting> recordingSettings(const RecordConfig& config) {
  std::vector<jfr::Setting> settings = {{"jdk.CPUTimeSamplesLost", "enabled", "true"}};
  const std::string period = jfr::formatDuration(config.periodNs);
  if (config.sampleEvents != jfr::SampleEvents::kExecution) {
    settings.push_back({"jdk.CPUTimeSample", "enabled", "true"});
    settings.push_back({"jdk.CPUTimeSample", "throttle", config.cpuThrottle.empty() ? period : config.cpuThrottle});
    settings.push_back({"jdk.CPUTimeSample", "stackTrace", "true"});
  }
  if (config.sampleEvents != jfr::SampleEvents::kCpuTime) {
    settings.push_back({"jdk.ExecutionSample", "enabled", "true"});
    settings.push_back({"jdk.ExecutionSample", "period", period});
  }
  const timing::MethodTimingOptions& timing = config.methodTiming;
  if (!timing.timingFilter.empty()) {
    settings.push_back({"jdk.MethodTiming", "enabled", "true"});
    settings.push_back({"jdk.MethodTiming", "filter", timing.timingFilter});
    settings.push_back(
        {"jdk.MethodTiming", "period", timing.timingPeriodNs > 0 ? jfr::formatDuration(timing.timingPeriodNs) : "endChunk"});
  }
  if (!timing.traceFilter.empty()) {
    settings.push_back({"jdk.MethodTrace", "enabled", "true"});
    settings.push_back({"jdk.MethodTrace", "filter", timing.traceFilter});
    settings.push_back({"jdk.MethodTrace", "threshold", jfr::formatDuration(timing.traceThresholdNs)});
    settings.push_back({"jdk.MethodTrace", "stackTrace", "true"});
  }
  if (config.offCpu) {
    settings.push_back({"jfrbpf.OffCPUSample", "enabled", "true"});
    settings.push_back({"jfrbpf.OffCPUSample", "throttle", jfr::formatDuration(config.offCpuIntervalNs)});
    settings.push_back({"jfrbpf.OffCPUSample", "stackTrace", "true"});
  }
  if (config.lock.enabled) {
    for (const char* event : {"jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.ThreadPark"}) {
      settings.push_back({event, "enabled", "true"});
      settings.push_back({event, "threshold", jfr::formatDuration(config.lock.thresholdNs)});
      settings.push_back({event, "stackTrace", "true"});
    }
  }
  if (config.allocation.enabled) {
    // JFR's throttle is a rate; a fixed interval has none (a note in the file gives the interval).
    const AllocationOptions& alloc = config.allocation;
    settings.push_back({"jdk.ObjectAllocationSample", "enabled", "true"});
    settings.push_back({"jdk.ObjectAllocationSample", "throttle",
                        alloc.intervalBytes > 0 ? "off" : std::to_string(alloc.samplesPerSecond) + "/s"});
  }
  return settings;
}

std::vector<jfr::Setting> samplingPeriodSettings(jfr::SampleEvents events, int64_t periodNs) {
  std::vector<jfr::Setting> settings;
  if (events != jfr::SampleEvents::kExecution) {
    settings.push_back({"jdk.CPUTimeSample", "throttle", jfr::formatDuration(periodNs)});
  }
  if (events != jfr::SampleEvents::kCpuTime) settings.push_back({"jdk.ExecutionSample", "period", jfr::formatDuration(periodNs)});
  return settings;
}

SamplerConfig samplerConfigOf(const RecordConfig& config) {
  SamplerConfig sampler;
  sampler.samplingPeriodNs = static_cast<uint64_t>(config.periodNs);
  sampler.userStackDepth = config.stackDepth;
  sampler.perCpuClocks = config.clockMode == ClockMode::PerCpu;
  sampler.ringBufferBytes = config.ringBufferBytes;
  sampler.measureSampleCost = config.measureSampleCost;
  sampler.methodTraces = !config.methodTiming.traceFilter.empty() || config.agentEvents();
  sampler.offCpu = config.offCpu;
  sampler.offCpuIntervalNs = static_cast<uint64_t>(config.offCpuIntervalNs);
  return sampler;
}

}  // namespace jfrbpf::record
