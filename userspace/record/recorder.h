#pragma once
// One recording from start to finished file: targets, the BPF sampler on per-CPU cpu-clock events, the
// consumer thread that turns ring-buffer records into JFR events, and the stop conditions (duration,
// SIGINT/SIGTERM, every target gone).
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bpf/method_timer_abi.h"
#include "bpf/sampler_abi.h"
#include "formats/jfr/writer/recording.h"
#include "jvmsupport/protocol/timing_table.h"
#include "userspace/jvm/java_session.h"
#include "userspace/base/file_owner.h"
#include "userspace/record/bpf_sampler.h"
#include "userspace/record/file_series.h"
#include "userspace/record/memory_budget.h"
#include "userspace/record/retention.h"
#include "userspace/record/sampling_clocks.h"
#include "userspace/timing/method_timing_options.h"

namespace jfrbpf::record {

// --alloc: jdk.ObjectAllocationSample events (jvmsupport/agent/allocation_sampler.h), at most this many
// per second per JVM (the agent's bound).
inline constexpr uint32_t kMaxAllocationSamplesPerSecond = 10'000;
struct AllocationOptions {
  bool enabled = false;
  uint64_t intervalBytes = 0;     // mean bytes a thread allocates between samples, or
  uint32_t samplesPerSecond = 300;  // samples per second per JVM (JFR's profile.jfc throttle) when no interval
};

// --lock: jdk.JavaMonitorEnter, jdk.JavaMonitorWait and jdk.ThreadPark events (jvmsupport/agent/lock_profiler.h)
// for waits of at least the threshold (JFR's default.jfc: 20 ms).
struct LockOptions {
  bool enabled = false;
  int64_t thresholdNs = 20'000'000;
};

struct RecordConfig {
  std::vector<pid_t> pids;             // -p (one or more)
  std::vector<std::string> command;    // launch mode: CMD ARGS...
  int64_t durationNs = 0;              // 0: until stopped or every target exits
  std::string outputPath;
  std::optional<FileOwner> outputOwner;  // who recordings and the directories made for them go to (sudo)
  int64_t periodNs = 10'000'000;       // CPU time between samples
  ClockMode clockMode = ClockMode::PerThread;
  uint32_t stackDepth = 512;           // user frames
  uint32_t ringBufferBytes = 8u << 20;
  bool progressLine = false;           // live status on stderr
  std::vector<jfr::Setting> settings;  // recorded as jdk.ActiveSetting
  jfr::SampleEvents sampleEvents = jfr::SampleEvents::kBoth;  // --sample-events
  timing::MethodTimingOptions methodTiming;  // --method-timing / --method-trace
  std::string containerFilter;         // --all: only JVMs whose container id starts with this
  bool measureSampleCost = false;      // JFRBPF_DEBUG=cost: the BPF time of every sample, in the summary
  int64_t flushNs = 1'000'000'000;     // --flush: the oldest a chunk gets before it is written out
  RotationPolicy rotation;             // --rotate, --rotate-size: outputPath is then a directory
  RetentionPolicy retention;           // --max-age, --max-size: of the output directory
  double maxRatePerSecond = 0;         // --max-rate: host-wide samples per second (0: no budget)
  bool offCpu = false;                 // --off-cpu: jfrbpf.OffCPUSample events as well
  int64_t offCpuIntervalNs = 1'000'000;  // their mean off-CPU time per event (0: every wait)
  size_t memoryLimitBytes = kDefaultMemoryLimit;  // --memory-limit (memory_budget.h)
  AllocationOptions allocation;        // --alloc
  LockOptions lock;                    // --lock
  // Events the agents send through the trace probe, the JVMs' own events rather than samples.
  bool agentEvents() const { return allocation.enabled || lock.enabled; }
};

// The JFR file of a recording with `config` at `path`.
jfr::RecordingOptions recordingOptions(const RecordConfig& config, const std::string& path);

enum class StopReason { Duration, Interrupted, Terminated, TargetsExited };

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

// Runs the whole recording. Throws jfrbpf::Error for anything that prevents a useful recording (in which
// case no output file and no attached program is left behind).
RecordSummary record(const RecordConfig& config);

// `record --all`: every HotSpot JVM on the host, those that start during the recording included, each into
// its own file in the directory config.outputPath.
RecordSummary recordAll(const RecordConfig& config);

const char* describe(StopReason reason);

// What each JVM's agent session may hold: its share of config.memoryLimitBytes.
jvm::SessionLimits sessionLimitsOf(const RecordConfig& config);

// The BPF sampler a recording with `config` needs.
SamplerConfig samplerConfigOf(const RecordConfig& config);

}  // namespace jfrbpf::record
