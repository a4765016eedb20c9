#include "bench/sampler/recording_facts.h"

#include <vector>

#include "bench/sampler/distribution.h"
#include "formats/jfr/reader/recording.h"

namespace jfrbpf::bench {

using namespace jfrbpf::jfr::reader;

RecordingFacts readRecordingFacts(const std::string& path) {
  RecordingFacts facts;
  std::vector<double> depths;
  FieldKey failed("failed"), lost("lostSamples"), cause("cause");
  Recording recording = Recording::open(path);
  recording.forEachEvent(
      [&](const RecordedEvent& event) {
        const std::string& type = event.type().name;
        if (type == "jdk.CPUTimeSample" || type == "jdk.ExecutionSample") {
          (type == "jdk.CPUTimeSample" ? facts.cpuTimeSamples : facts.executionSamples) += 1;
          if (type == "jdk.CPUTimeSample" && failed.of(event).asBool()) facts.failedSamples += 1;
          StackTraceView trace(event.get("stackTrace"));
          if (trace.present() && trace.truncated()) facts.truncatedStacks += 1;
          depths.push_back(static_cast<double>(trace.size()));
        } else if (type == "jdk.ObjectAllocationSample") {
          facts.allocationSamples += 1;
        } else if (type == "jdk.JavaMonitorEnter" || type == "jdk.JavaMonitorWait") {
          facts.monitorEvents += 1;
        } else if (type == "jdk.CPUTimeSamplesLost") {
          facts.lostSamples += static_cast<uint64_t>(lost.of(event).asLong());
        } else if (type == "jfrbpf.SampleLoss") {
          facts.lossCauses[std::string(cause.of(event).asString())] += static_cast<uint64_t>(lost.of(event).asLong());
        }
      },
      [](const TypeInfo& type) {
        return type.name == "jdk.CPUTimeSample" || type.name == "jdk.ExecutionSample" ||
               type.name == "jdk.CPUTimeSamplesLost" || type.name == "jfrbpf.SampleLoss" ||
               type.name == "jdk.ObjectAllocationSample" || type.name == "jdk.JavaMonitorEnter" ||
               type.name == "jdk.JavaMonitorWait";
      });
  facts.medianFrames = distributionOf(std::move(depths)).median;
  return facts;
}

}  // namespace jfrbpf::bench
