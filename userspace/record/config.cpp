#include "userspace/record/config.h"

namespace jfrbpf::record {

jfr::RecordingOptions recordingOptions(const RecordConfig& config, const std::string& path) {
  jfr::RecordingOptions options;
  options.path = path;
  options.owner = config.outputOwner;
  options.settings = config.settings;
  options.maxChunkAge = config.flushNs;
  options.sampleEvents = config.sampleEvents;
  if (config.allocation.enabled) {
    // JFR's throttle is a rate; a fixed interval has none (a note in the file gives the interval).
    const AllocationOptions& alloc = config.allocation;
    options.settings.push_back({"jdk.ObjectAllocationSample", "enabled", "true"});
    options.settings.push_back({"jdk.ObjectAllocationSample", "throttle",
                                alloc.intervalBytes > 0 ? "off" : std::to_string(alloc.samplesPerSecond) + "/s"});
  }

  return options;
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
