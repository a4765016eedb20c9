// The JFR settings a recording writes, from the one place that knows them: what each event source asked
// for shows in jdk.ActiveSetting as JFR spells it, and --max-rate's period change touches only the sampling
// events that are written.
#include "userspace/record/config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace jfrbpf::record {
namespace {

std::string valueOf(const std::vector<jfr::Setting>& settings, const std::string& event, const std::string& name) {
  auto it = std::find_if(settings.begin(), settings.end(),
                         [&](const jfr::Setting& s) { return s.eventName == event && s.name == name; });
  return it == settings.end() ? "(none)" : it->value;
}

TEST(RecordSettings, EverySourceAskedForShowsItsSettings) {
  RecordConfig config;
  config.periodNs = 20'000'000;
  config.offCpu = true;
  config.offCpuIntervalNs = 1'500'000;
  config.lock = {.enabled = true, .thresholdNs = 20'000'000};
  config.allocation = {.enabled = true, .intervalBytes = 0, .samplesPerSecond = 300};
  config.methodTiming.timingFilter = "demo.DemoApp::work";
  const std::vector<jfr::Setting> settings = recordingSettings(config);
  EXPECT_EQ(valueOf(settings, "jdk.CPUTimeSample", "throttle"), "20 ms");
  EXPECT_EQ(valueOf(settings, "jdk.ExecutionSample", "period"), "20 ms");
  EXPECT_EQ(valueOf(settings, "jdk.CPUTimeSamplesLost", "enabled"), "true");
  EXPECT_EQ(valueOf(settings, "jfrbpf.OffCPUSample", "throttle"), "1500 us");
  EXPECT_EQ(valueOf(settings, "jdk.ThreadPark", "threshold"), "20 ms");
  EXPECT_EQ(valueOf(settings, "jdk.ObjectAllocationSample", "throttle"), "300/s");
  EXPECT_EQ(valueOf(settings, "jdk.MethodTiming", "filter"), "demo.DemoApp::work");
  EXPECT_EQ(valueOf(settings, "jdk.MethodTiming", "period"), "endChunk");
  EXPECT_EQ(valueOf(settings, "jdk.MethodTrace", "enabled"), "(none)") << "not asked for";
  EXPECT_EQ(recordingOptions(config, "/tmp/x.jfr").settings.size(), settings.size());
}

TEST(RecordSettings, ARateIsTheThrottleAsGivenAndOnlyTheWrittenSampleEventsShowIt) {
  RecordConfig config;
  config.cpuThrottle = "500/s";
  config.sampleEvents = jfr::SampleEvents::kCpuTime;
  const std::vector<jfr::Setting> settings = recordingSettings(config);
  EXPECT_EQ(valueOf(settings, "jdk.CPUTimeSample", "throttle"), "500/s");
  EXPECT_EQ(valueOf(settings, "jdk.ExecutionSample", "period"), "(none)");
  const std::vector<jfr::Setting> changed = samplingPeriodSettings(jfr::SampleEvents::kCpuTime, 38'000'000);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(valueOf(changed, "jdk.CPUTimeSample", "throttle"), "38 ms");
  EXPECT_EQ(samplingPeriodSettings(jfr::SampleEvents::kBoth, 2'500'000).size(), 2u);
}

}  // namespace
}  // namespace jfrbpf::record
