#pragma once
// Turns the sampler's cumulative loss counters into JFR events: jdk.CPUTimeSamplesLost per thread with the
// count lost since the last report (as JDK 25 does), and jfrbpf.SampleLoss with the cause, so that for every
// thread: overflows seen = CPUTimeSample events + lostSamples; and jfrbpf.OffCPUSamplesLost for off-CPU
// records likewise.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/jfr/writer/recording.h"
#include "userspace/record/jvm/thread_registry.h"
#include "userspace/record/sampling/bpf_sampler.h"

namespace jfrbpf::record {

inline constexpr const char* kCauseRingBufferFull = "ring buffer full";
inline constexpr const char* kCauseKernelThrottling = "kernel throttling";
inline constexpr const char* kCauseThreadTableFull = "loss table full (thread unknown)";
inline constexpr const char* kCauseProcessLetGo = "process let go before its sample was read";
// --sampler cpu: a thread's wake-ups can line up with the per-CPU clocks' ticks so that none catches it
// running; what it used after its last sample is charged when it ends (bpf/thread_cpu_time.bpf.h).
inline constexpr const char* kCauseUnsampledAtEnd = "no per-CPU clock caught the thread before it ended";

// Not a loss: --context-only left these samples out (the thread was outside a context, or a sampled trace).
inline constexpr const char* kCauseLeftOutOfContext = "left out: outside an OpenTelemetry context (--context-only)";

class LossLedger {
 public:
  LossLedger(jfr::Recording& out, ThreadRegistry& threads) : out_(out), threads_(threads) {}

  // `losses` holds cumulative per-thread counts; only the growth since the last call is reported.
  void reportThreadLosses(jfr::Ticks now, const std::vector<ThreadLoss>& losses);
  // Losses that belong to no known thread (kernel throttling, full loss table).
  void reportUnattributed(jfr::Ticks now, const char* cause, uint64_t count);

  uint64_t total() const { return total_; }  // CPU samples
  // Those charged to a thread: a recording's files each report the unattributed ones, which happened once.
  uint64_t attributed() const { return total_ - unattributed_; }
  uint64_t offCpuLost() const { return offCpuLost_; }
  const std::unordered_map<std::string, uint64_t>& byCause() const { return byCause_; }  // attributed ones

 private:
  jfr::Recording& out_;
  ThreadRegistry& threads_;
  // A cumulative count and the time it stands for, as last reported.
  struct Reported {
    uint64_t count = 0;
    uint64_t ns = 0;
    // What grew since the last report (count 0: nothing), remembering the new totals.
    Reported advanceTo(uint64_t totalCount, uint64_t totalNs);
  };
  struct ThreadReported {
    Reported cpu;
    Reported unsampled;
    Reported offCpu;
  };
  // jdk.CPUTimeSamplesLost and jfrbpf.SampleLoss with what the thread lost for `cause` since the last report.
  void reportCpuLoss(jfr::Ticks now, const ThreadLoss& loss, const char* cause, Reported fresh);
  // jfrbpf.OffCPUSamplesLost with what the thread lost since the last report.
  void reportOffCpuLoss(jfr::Ticks now, const ThreadLoss& loss, Reported& reported);
  std::unordered_map<uint32_t, ThreadReported> reported_;  // tid -> cumulative counts already written
  std::unordered_map<std::string, uint64_t> byCause_;
  uint64_t total_ = 0;
  uint64_t unattributed_ = 0;
  uint64_t offCpuLost_ = 0;
};

}  // namespace jfrbpf::record
