#pragma once
// Everything the views show, read from a recording in one pass: the CPU samples (as a Profile), off-CPU
// samples, allocation samples, lock waits, lost samples, method timings and traces, notes, and what the
// recording says about itself.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "formats/convert/allocation_collector.h"
#include "formats/convert/lock_collector.h"
#include "formats/convert/off_cpu_collector.h"
#include "formats/convert/profile.h"
#include "formats/convert/sample_collector.h"
#include "formats/jfr/reader/recording.h"

namespace jfrbpf::view {

struct DigestOptions {
  convert::SampleOptions samples;  // event choice, --thread and --method
};

struct LossRecord {
  std::string cause;    // jfrbpf.SampleLoss cause, or kJdkLossCause for jdk.CPUTimeSamplesLost; "" off CPU
  int64_t thread = -1;  // index into RecordingDigest::lossThreads; -1 when no thread is attributed
  int64_t lostSamples = 0;
  int64_t lostNanos = 0;  // the time the lost samples stood for, where the event says (jfrbpf.OffCPUSamplesLost)
};

struct LossTotals {
  int64_t samples = 0;
  int64_t nanos = 0;
};
LossTotals lossTotals(const std::vector<LossRecord>& losses);
// Losses of each thread (`threads` are the records' thread table), by threadKey.
std::map<std::string, LossTotals> lossesByThread(const std::vector<LossRecord>& losses,
                                                 const std::vector<convert::ProfileThread>& threads);

// jfrbpf.OffCPUSample events, filtered as the CPU samples are, weighted by the off-CPU time they stand for.
struct OffCpuDigest {
  convert::Profile profile;
  std::vector<convert::OffCpuState> states;  // by off-CPU time, descending
  uint64_t eventsSeen = 0;                   // before filtering
  std::vector<LossRecord> losses;            // jfrbpf.OffCPUSamplesLost; threads in RecordingDigest::lossThreads
  bool present() const { return eventsSeen > 0 || !losses.empty(); }
};

// jdk.ObjectAllocationSample events, filtered as the CPU samples are, weighted by the bytes they stand for
// (TimeKind::kAlloc: each stack topped by the allocated class).
struct AllocationDigest {
  convert::Profile profile;
  uint64_t eventsSeen = 0;  // before filtering
};

// The lock waits of one kind (jdk.JavaMonitorEnter, jdk.JavaMonitorWait or jdk.ThreadPark), filtered as the
// CPU samples are, weighted by the time waited (TimeKind::kLock: each stack topped by the lock's class).
struct LockKindDigest {
  convert::Profile profile;
  std::vector<convert::LockOwner> owners;  // by previousOwner or notifier; empty for jdk.ThreadPark
  uint64_t eventsSeen = 0;                 // before filtering
};
// Kept apart by kind: a thread blocked on a monitor is contention, one in Object.wait or parked may well be
// idle by design, and their times do not add up to one figure of merit.
struct LockDigest {
  std::array<LockKindDigest, convert::kLockKinds.size()> kinds;  // by convert::LockKind
  const LockKindDigest& of(convert::LockKind kind) const { return kinds[static_cast<size_t>(kind)]; }
  uint64_t eventsSeen() const;
};

struct MethodTimingRow {
  uint32_t method = 0;  // index into RecordingDigest::tables.methods
  int64_t invocations = 0;
  int64_t minimumNanos = INT64_MIN;  // INT64_MIN (Long.MIN_VALUE) = not measurable, shown as N/A
  int64_t averageNanos = INT64_MIN;
  int64_t maximumNanos = INT64_MIN;
  int64_t timeNanos = 0;  // of the event the row comes from
};

struct MethodTraceRecord {
  int64_t startNanos = 0;
  int64_t durationNanos = 0;
  uint32_t thread = 0;  // index into tables.threads
  uint32_t method = 0;  // index into tables.methods
  uint32_t stack = 0;   // node in tables.nodes (the caller's stack, leaf first when walked up)
};

struct Note {
  std::string severity;
  std::string message;
};

inline constexpr const char* kJdkLossCause = "lost by the JVM's sampler (no cause recorded)";

struct RecordingDigest {
  std::string path;
  uint64_t fileBytes = 0;
  size_t chunks = 0;
  int64_t startNanos = 0;  // epoch
  int64_t endNanos = 0;
  bool writtenByJfrbpf = false;  // the metadata declares jfrbpf's own event types
  std::string jvmName, jvmVersion, javaArguments;
  int64_t pid = 0;

  convert::Profile profile;                      // CPU samples, filtered
  std::map<std::string, uint64_t> sampleEvents;  // events per sample event type, before filtering

  // Losses: jfrbpf.SampleLoss when the recording has that type (it is the complete ledger and
  // CPUTimeSamplesLost repeats part of it), else jdk.CPUTimeSamplesLost.
  std::vector<LossRecord> losses;
  std::vector<convert::ProfileThread> lossThreads;

  OffCpuDigest offCpu;
  AllocationDigest allocation;
  LockDigest locks;

  // Method timing (last value per method, as JDK 25's view) and traces; their names and stacks live in
  // `tables`, a profile without samples.
  convert::Profile tables;
  std::vector<MethodTimingRow> timings;
  std::vector<MethodTraceRecord> traces;
  std::vector<Note> notes;
  // jfrbpf.ThreadCPUTime: OS thread id -> its CPU time over the recording by the kernel's accounting, and
  // the span of the recording it was alive for (wall - CPU: its time off CPU).
  std::map<int64_t, int64_t> kernelCpuNanos;
  std::map<int64_t, int64_t> kernelWallNanos;

  int64_t totalLost() const;
};

// Throws jfrbpf::Error (missing, unreadable or corrupt file; a sample event asked for that the file lacks).
RecordingDigest digestRecording(const std::string& path, const DigestOptions& options);
RecordingDigest digestRecording(const jfr::reader::Recording& recording, const DigestOptions& options);

}  // namespace jfrbpf::view
