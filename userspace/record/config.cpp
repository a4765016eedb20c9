#include "userspace/record/config.h"

#include "formats/jfr/writer/durations.h"

namespace jfrbpf::record {

std::vector<jfr::Setting> cpuSampleSettings(const RecordConfig& config) {
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

}  // namespace jfrbpf::record
