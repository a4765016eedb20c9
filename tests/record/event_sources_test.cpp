// The event sources a recording runs (userspace/record/sources/registry.h), without root or BPF: the ones
// asked for, the JFR settings each writes into jdk.ActiveSetting as JFR spells them, what they ask of the
// kernel side, and --max-rate's period change, which touches only the sampling events that are written.
#include "userspace/record/sources/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "userspace/record/sources/allocation_source.h"
#include "userspace/record/sources/lock_source.h"
#include "userspace/record/sources/method_timing_source.h"
#include "userspace/record/sources/off_cpu_source.h"

namespace jfrbpf::record {
namespace {

std::string valueOf(const std::vector<jfr::Setting>& settings, const std::string& event, const std::string& name) {
  auto it = std::find_if(settings.begin(), settings.end(),
                         [&](const jfr::Setting& s) { return s.eventName == event && s.name == name; });
  return it == settings.end() ? "(none)" : it->value;
}

RecordConfig everySource() {
  RecordConfig config;
  config.periodNs = 20'000'000;
  config.offCpu = {.enabled = true, .intervalNs = 1'500'000};
  config.lock = {.enabled = true, .thresholdNs = 20'000'000};
  config.allocation = {.enabled = true, .intervalBytes = 0, .samplesPerSecond = 300};
  config.methodTiming.timingFilter = "demo.DemoApp::work";
  return config;
}

TEST(EventSources, OnlyTheSourcesAskedForRunAndEachReports) {
  EXPECT_TRUE(eventSourcesOf(RecordConfig{}).empty());
  RecordSummary summary;
  for (const auto& source : eventSourcesOf(everySource())) summary.sources.push_back(source->report());
  ASSERT_EQ(summary.sources.size(), 4u);
  EXPECT_NE(summary.source<OffCpuReport>(), nullptr);
  EXPECT_NE(summary.source<AllocationReport>(), nullptr);
  EXPECT_NE(summary.source<LockReport>(), nullptr);
  EXPECT_NE(summary.source<MethodTimingReport>(), nullptr);
  RecordConfig locksOnly;
  locksOnly.lock.enabled = true;
  summary.sources.clear();
  for (const auto& source : eventSourcesOf(locksOnly)) summary.sources.push_back(source->report());
  EXPECT_EQ(summary.source<AllocationReport>(), nullptr);
  EXPECT_NE(summary.source<LockReport>(), nullptr);
}

TEST(EventSources, EverySourceAskedForShowsItsSettings) {
  const RecordConfig config = everySource();
  const EventSources sources = eventSourcesOf(config);
  const std::vector<jfr::Setting> settings = recordingSettings(config, sources);
  EXPECT_EQ(valueOf(settings, "jdk.CPUTimeSample", "throttle"), "20 ms");
  EXPECT_EQ(valueOf(settings, "jdk.ExecutionSample", "period"), "20 ms");
  EXPECT_EQ(valueOf(settings, "jdk.CPUTimeSamplesLost", "enabled"), "true");
  EXPECT_EQ(valueOf(settings, "jfrbpf.OffCPUSample", "throttle"), "1500 us");
  EXPECT_EQ(valueOf(settings, "jdk.ThreadPark", "threshold"), "20 ms");
  EXPECT_EQ(valueOf(settings, "jdk.ObjectAllocationSample", "throttle"), "300/s");
  EXPECT_EQ(valueOf(settings, "jdk.MethodTiming", "filter"), "demo.DemoApp::work");
  EXPECT_EQ(valueOf(settings, "jdk.MethodTiming", "period"), "endChunk");
  EXPECT_EQ(valueOf(settings, "jdk.MethodTrace", "enabled"), "(none)") << "not asked for";
  EXPECT_EQ(recordingOptions(config, sources, "/tmp/x.jfr").settings.size(), settings.size());
}

TEST(EventSources, TheKernelLoadsWhatTheSourcesNeed) {
  RecordConfig config;
  SamplerConfig plain = samplerConfigOf(config, eventSourcesOf(config));
  EXPECT_FALSE(plain.offCpu);
  EXPECT_FALSE(plain.methodTraces);
  config.methodTiming.timingFilter = "demo.DemoApp::work";
  EXPECT_FALSE(samplerConfigOf(config, eventSourcesOf(config)).methodTraces) << "timing alone needs no trace probe";
  config.methodTiming.traceFilter = "demo.DemoApp::work";
  EXPECT_TRUE(samplerConfigOf(config, eventSourcesOf(config)).methodTraces);
  config = RecordConfig{};
  config.lock.enabled = true;
  EXPECT_TRUE(samplerConfigOf(config, eventSourcesOf(config)).methodTraces) << "lock waits come through the probe";
  config.offCpu = {.enabled = true, .intervalNs = 2'000'000};
  const SamplerConfig waits = samplerConfigOf(config, eventSourcesOf(config));
  EXPECT_TRUE(waits.offCpu);
  EXPECT_EQ(waits.offCpuIntervalNs, 2'000'000u);
}

TEST(EventSources, ARateIsTheThrottleAsGivenAndOnlyTheWrittenSampleEventsShowIt) {
  RecordConfig config;
  config.cpuThrottle = "500/s";
  config.sampleEvents = jfr::SampleEvents::kCpuTime;
  const std::vector<jfr::Setting> settings = recordingSettings(config, eventSourcesOf(config));
  EXPECT_EQ(valueOf(settings, "jdk.CPUTimeSample", "throttle"), "500/s");
  EXPECT_EQ(valueOf(settings, "jdk.ExecutionSample", "period"), "(none)");
  const std::vector<jfr::Setting> changed = samplingPeriodSettings(jfr::SampleEvents::kCpuTime, 38'000'000);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(valueOf(changed, "jdk.CPUTimeSample", "throttle"), "38 ms");
  EXPECT_EQ(samplingPeriodSettings(jfr::SampleEvents::kBoth, 2'500'000).size(), 2u);
}

TEST(EventSources, AReportSaysNothingOfASourceThatWroteNothing) {
  RecordSummary summary;
  EXPECT_EQ(AllocationReport{}.line(summary), "");
  EXPECT_EQ(LockReport{}.line(summary), "");
  EXPECT_EQ(MethodTimingReport{}.line(summary), "");
  EXPECT_EQ(OffCpuReport{}.line(summary), "");
  summary.offCpuLost = 3;
  EXPECT_EQ(OffCpuReport{}.line(summary), "off-CPU  0 samples (0.00 s of off-CPU time), 3 lost") << "losses are said";
  AllocationReport allocations;
  allocations.samples = 1234;
  allocations.bytes = size_t{3} << 20;
  summary.traceCounters[JFRBPF_TIMER_TRACES_LOST_BUSY] = 2;
  EXPECT_EQ(allocations.line(summary), "alloc    1,234 samples (3 MiB allocated), 2 records of the probe lost");
}

}  // namespace
}  // namespace jfrbpf::record
