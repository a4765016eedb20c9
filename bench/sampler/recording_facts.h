#pragma once
// What a recording (jfrbpf's or the JDK's own) holds, read with the project's JFR reader: how many CPU
// samples, how deep their stacks, how many were lost and why.
#include <cstdint>
#include <map>
#include <string>

namespace jfrbpf::bench {

struct RecordingFacts {
  uint64_t cpuTimeSamples = 0;    // jdk.CPUTimeSample (jfrbpf, JDK 25)
  uint64_t executionSamples = 0;  // jdk.ExecutionSample (JDK's own sampler)
  uint64_t allocationSamples = 0;  // jdk.ObjectAllocationSample
  uint64_t monitorEvents = 0;      // jdk.JavaMonitorEnter and jdk.JavaMonitorWait
  double medianFrames = 0;        // per sample of either kind
  uint64_t truncatedStacks = 0;
  uint64_t failedSamples = 0;
  uint64_t lostSamples = 0;                    // sum of jdk.CPUTimeSamplesLost.lostSamples
  std::map<std::string, uint64_t> lossCauses;  // jfrbpf.SampleLoss cause -> lostSamples
};

// Throws jfrbpf::Error when the file cannot be read.
RecordingFacts readRecordingFacts(const std::string& path);

}  // namespace jfrbpf::bench
