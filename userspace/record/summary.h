#pragma once
// What a recording did, as the drivers return it and `jfrbpf record` prints it: why it stopped, its counts,
// and its files. Part of record/'s vocabulary (README.md).
#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bpf/method_timer_abi.h"
#include "bpf/sampler_abi.h"

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

struct RecordSummary;

// record --push: what became of the recording's files at one destination.
struct PushCounts {
  std::string destination;  // "otlp=URL"
  uint64_t delivered = 0;
  uint64_t pending = 0;     // in the spool at the end, sent on the next run's start
  uint64_t failed = 0;      // refused by the backend for good (4xx), or unreadable
  uint64_t dropped = 0;     // the oldest, for the spool's bound
  std::string lastError;    // of a failed attempt, "" if none
};

// "otlp=URL: 3 delivered, 1 pending, 0 failed, 0 dropped; last error: ...", the error only while it matters.
inline std::string describe(const PushCounts& p) {
  std::string text = p.destination + ": " + std::to_string(p.delivered) + " delivered, " + std::to_string(p.pending) +
                     " pending, " + std::to_string(p.failed) + " failed, " + std::to_string(p.dropped) + " dropped";
  if (!p.lastError.empty() && (p.pending > 0 || p.failed > 0)) text += "; last error: " + p.lastError;
  return text;
}

// "thread variable unreadable", …: why a record's context was not read (enum jfrbpf_context_status); "" for
// none and read.
inline const char* contextNotReadCause(uint32_t status) {
  switch (status) {
    case JFRBPF_CONTEXT_NOT_READ: return "not readable there";
    case JFRBPF_CONTEXT_TLS_FAULT: return "thread variable unreadable";
    case JFRBPF_CONTEXT_RECORD_FAULT: return "record unreadable";
    case JFRBPF_CONTEXT_ATTRS_FAULT: return "attributes unreadable";
    case JFRBPF_CONTEXT_TOO_LARGE: return "attributes over 612 bytes";
    default: return "";
  }
}

// How many records (samples, traces, events) carried their thread's OpenTelemetry context, and how many could
// not read it, by cause (enum jfrbpf_context_status).
struct ContextCounts {
  std::array<uint64_t, JFRBPF_CONTEXT_STATUS_COUNT> byStatus{};

  uint64_t read() const { return byStatus[JFRBPF_CONTEXT_READ]; }
  uint64_t notRead() const {
    uint64_t all = 0;
    for (uint64_t count : byStatus) all += count;
    return all - byStatus[JFRBPF_CONTEXT_NONE] - byStatus[JFRBPF_CONTEXT_READ];
  }
  ContextCounts& operator+=(const ContextCounts& other) {
    for (size_t i = 0; i < byStatus.size(); ++i) byStatus[i] += other.byStatus[i];
    return *this;
  }
};

// What one event source (sources/) did over the recording: its own counts, and the line of the summary
// `jfrbpf record` prints for them.
class SourceReport {
 public:
  virtual ~SourceReport() = default;
  // "alloc    437 samples (12 MiB allocated)", or empty when there is nothing to say; `whole` is the
  // recording's summary (the losses of the rings the source shares).
  virtual std::string line(const RecordSummary& whole) const = 0;
};

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
  uint64_t offCpuLost = 0;             // --off-cpu: its records lost (accounted as every loss is)
  std::array<uint64_t, JFRBPF_COUNTER_COUNT> counters{};  // the sampler's own, summed over CPUs
  std::vector<uint64_t> sampleCosts;   // with measureSampleCost: samples per JFRBPF_COST_BUCKET_NS of BPF time
  std::map<std::string, uint64_t> lostByCause;
  uint64_t stacks = 0;                 // stacks written: of CPU samples, and of the sources' events that have one
  uint64_t truncatedStacks = 0;        // of those, stacks stopped before the thread's outermost frame
  std::map<std::string, uint64_t> truncatedByCause;
  uint64_t threads = 0;
  size_t javaProcesses = 0;            // targets whose Java frames were resolved through the agent
  int launchedExitStatus = -1;         // wait status of the launched command, if any
  // The trace probe program's counters, over CPUs: its ring carries method traces, allocation samples and
  // lock waits alike.
  std::array<uint64_t, JFRBPF_TIMER_COUNTER_COUNT> traceCounters{};
  size_t fileCount = 0;                // files written (more than one per target with --rotate)
  size_t memoryLimitBytes = 0;         // --memory-limit, and what the budget saw and did
  size_t peakResidentBytes = 0;
  uint64_t memorySheds = 0;
  uint64_t javaFramesDropped = 0;      // JVMs that went on with native frames for the budget
  ContextCounts contexts;              // of every record written
  uint64_t leftOutOfContext = 0;       // --context-only: sampling ticks left out (samples + lost + these = ticks)
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
  std::vector<std::shared_ptr<const SourceReport>> sources;  // one per event source, in their order
  std::vector<PushCounts> pushes;      // one per --push destination

  // The report of type T (a source's, sources/), or null when that source did not run.
  template <class T>
  const T* source() const {
    for (const auto& report : sources) {
      if (const auto* mine = dynamic_cast<const T*>(report.get())) return mine;
    }
    return nullptr;
  }
};

}  // namespace jfrbpf::record
