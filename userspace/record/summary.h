#pragma once
// What a recording did, as the drivers return it and `jfrbpf record` prints it: why it stopped, its counts,
// and its files. Part of record/'s vocabulary (README.md).
#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bpf/method_timer_abi.h"
#include "bpf/sampler_abi.h"
#include "jvmsupport/protocol/timing_table.h"

namespace jfrbpf::record {

enum class StopReason { Duration, Interrupted, Terminated, TargetsExited };

inline const char* describe(StopReason reason) {
  switch (reason) {
    case StopReason::Duration: return "duration reached";
    case StopReason::Interrupted: return "interrupted";
    case StopReason::Terminated: return "terminated";
    case StopReason::TargetsExited: return "target exited";
  }
  return "stopped";
}

struct RecordSummary {
  std::string outputPath;
  StopReason stopReason = StopReason::Duration;
  double seconds = 0;
  int64_t periodNs = 0;                // the sampling period in force at the end (--max-rate may lengthen it)
  uint64_t samples = 0;
  uint64_t sampledCpuNs = 0;           // the CPU time the samples stand for
  uint64_t failedStacks = 0;
  uint64_t lost = 0;
  uint64_t overflows = 0;              // sampling ticks: periods of target threads' CPU time due a sample (samples + lost)
  uint64_t offCpuSamples = 0;          // --off-cpu: jfrbpf.OffCPUSample events
  uint64_t offCpuNs = 0;               // the off-CPU time they stand for
  uint64_t virtualThreadWaits = 0;     // of those, waits of virtual threads (unmounted: no OS thread slept)
  uint64_t virtualThreadWaitNs = 0;
  uint64_t offCpuLost = 0;             // off-CPU records lost
  uint64_t allocationSamples = 0;      // --alloc: jdk.ObjectAllocationSample events
  uint64_t allocatedBytes = 0;         // their weights, summed
  uint64_t monitorEnters = 0;          // --lock: jdk.JavaMonitorEnter events
  uint64_t monitorEnterNs = 0;         // their durations, summed
  uint64_t monitorWaits = 0;           // jdk.JavaMonitorWait events
  uint64_t monitorWaitNs = 0;
  uint64_t parks = 0;                  // jdk.ThreadPark events
  uint64_t parkNs = 0;
  std::array<uint64_t, JFRBPF_COUNTER_COUNT> counters{};  // the sampler's own, summed over CPUs
  std::vector<uint64_t> sampleCosts;   // with measureSampleCost: samples per JFRBPF_COST_BUCKET_NS of BPF time
  std::map<std::string, uint64_t> lostByCause;
  uint64_t truncatedStacks = 0;        // samples whose stack stopped before the thread's outermost frame
  std::map<std::string, uint64_t> truncatedByCause;
  uint64_t threads = 0;
  size_t javaProcesses = 0;            // targets whose Java frames were resolved through the agent
  int launchedExitStatus = -1;         // wait status of the launched command, if any
  // Method timing (when asked for).
  size_t timedJvms = 0;                // JVMs whose methods were instrumented
  size_t timedMethods = 0;             // jdk.MethodTiming events in the last batch
  uint64_t timedInvocations = 0;       // the invocations they count
  uint64_t tracesWritten = 0;          // jdk.MethodTrace events
  uint64_t tracesUnknown = 0;          // trace records no timed method could be found for
  protocol::TimingCounters stubCounters;  // the agents' timing tables', summed over JVMs
  std::array<uint64_t, JFRBPF_TIMER_COUNTER_COUNT> traceCounters{};  // the trace probe program's, over CPUs
  size_t fileCount = 0;                // files written (more than one per target with --rotate)
  size_t memoryLimitBytes = 0;         // --memory-limit, and what the budget saw and did
  size_t peakResidentBytes = 0;
  uint64_t memorySheds = 0;
  uint64_t javaFramesDropped = 0;      // JVMs that went on with native frames for the budget
  struct File {                        // record --all: one per JVM
    pid_t pid = 0;
    std::string path;                  // with --rotate: the last of its files
    size_t fileCount = 1;
    std::string mainClass;
    uint64_t samples = 0;
    uint64_t lost = 0;
    bool javaFrames = false;           // the agent was attached
  };
  std::vector<File> files;
};

}  // namespace jfrbpf::record
