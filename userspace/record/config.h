#pragma once
// What a user asks of a recording (`jfrbpf record`'s options), and the settings of its CPU samples; the
// event sources (sources/) read their own options here. Part of record/'s vocabulary: the session and the
// outputs read it; it names only what the files and the kernel side define (README.md).
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/file_owner.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/push/push_destination.h"
#include "userspace/record/files/file_series.h"
#include "userspace/record/files/retention.h"
#include "userspace/record/sampling/bpf_sampler.h"
#include "userspace/record/sampling/sampling_clocks.h"
#include "userspace/timing/method_timing_options.h"

namespace jfrbpf::record {

// --memory-limit's default, and its least: below it the loader cannot hold its fixed part (BPF rings, kernel
// symbols: 52 MiB recording one JVM at 1 kHz) and one JVM's share.
inline constexpr size_t kDefaultMemoryLimit = size_t{256} << 20;
inline constexpr size_t kMinimumMemoryLimit = size_t{128} << 20;

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

// --off-cpu: jfrbpf.OffCPUSample events, about one per interval of a thread's off-CPU time (0: every wait).
struct OffCpuOptions {
  bool enabled = false;
  int64_t intervalNs = 1'000'000;
};

// --context-only: which CPU samples are kept by the OpenTelemetry context their thread was in (JFR's
// "record-only-on-context"); the others are left out, and counted.
enum class ContextOnly { kOff, kInContext, kSampledTrace };

// --push: each finished file goes to these destinations (session/file_pusher.h).
inline constexpr uint64_t kDefaultPushSpoolBytes = uint64_t{512} << 20;
struct PushOptions {
  std::vector<push::PushDestination> destinations;
  std::optional<std::string> credentialsFile;  // --push-credentials
  std::string caFile;                          // --push-ca: "" for the system's CAs
  uint64_t spoolBytes = kDefaultPushSpoolBytes;  // --push-spool-size, per destination
  int64_t timeoutNs = 30'000'000'000;          // --push-timeout: the most one request may take
  bool enabled() const { return !destinations.empty(); }
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
  std::string cpuThrottle;             // --rate as given ("500/s"), jdk.CPUTimeSample's throttle; "": the period
  jfr::SampleEvents sampleEvents = jfr::SampleEvents::kBoth;  // --sample-events
  timing::MethodTimingOptions methodTiming;  // --method-timing / --method-trace
  std::string containerFilter;         // --all: only JVMs whose container id starts with this
  bool measureSampleCost = false;      // JFRBPF_DEBUG=cost: the BPF time of every sample, in the summary
  int64_t flushNs = 1'000'000'000;     // --flush: the oldest a chunk gets before it is written out
  RotationPolicy rotation;             // --rotate, --rotate-size: outputPath is then a directory
  RetentionPolicy retention;           // --max-age, --max-size: of the output directory
  double maxRatePerSecond = 0;         // --max-rate: host-wide samples per second (0: no budget)
  ContextOnly contextOnly = ContextOnly::kOff;  // --context-only
  OffCpuOptions offCpu;                // --off-cpu
  size_t memoryLimitBytes = kDefaultMemoryLimit;  // --memory-limit (session/memory_budget.h)
  AllocationOptions allocation;        // --alloc
  LockOptions lock;                    // --lock
  PushOptions push;                    // --push
};

// The JFR settings (jdk.ActiveSetting) of the CPU samples a recording with `config` writes, at its start ...
std::vector<jfr::Setting> cpuSampleSettings(const RecordConfig& config);
// ... and those --max-rate changes when it changes the sampling period.
std::vector<jfr::Setting> samplingPeriodSettings(jfr::SampleEvents events, int64_t periodNs);

}  // namespace jfrbpf::record
