#include "userspace/record/sources/registry.h"

#include "userspace/record/sources/allocation_source.h"
#include "userspace/record/sources/lock_source.h"
#include "userspace/record/sources/method_timing_source.h"
#include "userspace/record/sources/off_cpu_source.h"

namespace jfrbpf::record {

EventSources eventSourcesOf(const RecordConfig& config) {
  EventSources sources;
  if (config.offCpu.enabled) sources.push_back(offCpuSource(config.offCpu));
  if (config.allocation.enabled) sources.push_back(allocationSource(config.allocation));
  if (config.lock.enabled) sources.push_back(lockSource(config.lock));
  if (config.methodTiming.enabled()) sources.push_back(methodTimingSource(config.methodTiming));
  return sources;
}

std::vector<jfr::Setting> recordingSettings(const RecordConfig& config, const EventSources& sources) {
  std::vector<jfr::Setting> settings = cpuSampleSettings(config);
  for (const auto& source : sources) source->addSettings(settings);
  return settings;
}

jfr::RecordingOptions recordingOptions(const RecordConfig& config, const EventSources& sources, const std::string& path) {
  jfr::RecordingOptions options;
  options.path = path;
  options.owner = config.outputOwner;
  options.settings = recordingSettings(config, sources);
  options.maxChunkAge = config.flushNs;
  options.sampleEvents = config.sampleEvents;
  return options;
}

SamplerConfig samplerConfigOf(const RecordConfig& config, const EventSources& sources) {
  SamplerConfig sampler;
  sampler.samplingPeriodNs = static_cast<uint64_t>(config.periodNs);
  sampler.userStackDepth = config.stackDepth;
  sampler.perCpuClocks = config.clockMode == ClockMode::PerCpu;
  sampler.ringBufferBytes = config.ringBufferBytes;
  sampler.measureSampleCost = config.measureSampleCost;
  for (const auto& source : sources) source->configureKernel(sampler);
  return sampler;
}

}  // namespace jfrbpf::record
