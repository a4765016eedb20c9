#pragma once
// The loaded sampler BPF object: which processes it samples, its ring buffer, and its counters; and, when
// methods are traced, the uprobe program on the agents' trace stubs with its counters and trace ring.
#include <array>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/unique_fd.h"
#include "bpf/hotspot_abi.h"
#include "bpf/method_timer_abi.h"
#include "bpf/sampler_abi.h"
#include "bpf/unwind_abi.h"
#include "userspace/record/sampling/jvm_kernel_side.h"
#include "userspace/record/sampling/thread_cpu_times.h"

struct sampler;
struct bpf_link;
struct bpf_program;

namespace jfrbpf::record {

struct SamplerConfig {
  uint64_t samplingPeriodNs = 10'000'000;  // the clocks' period: the CPU time a sample stands for
  // Clocks per CPU (--sampler cpu) rather than per thread: a clock that fires is then evidence of a period of
  // the caught thread's CPU time only if it ran there since its last sample (bpf/thread_cpu_time.bpf.h).
  bool perCpuClocks = false;
  uint32_t userStackDepth = 512;
  uint32_t ringBufferBytes = 8u << 20;   // power of two, >= page size
  uint32_t unwindRows = 4u << 20;        // native unwind table rows for all processes (8 bytes each)
  // Method tracing (jdk.MethodTrace): loads the trace probe program; false leaves it unloaded. It and the
  // closing off-CPU pass are verified on a thread of their own after the constructor returns (see lateProgram).
  bool methodTraces = false;
  uint32_t traceRingBufferBytes = 8u << 20;  // power of two, >= page size
  // Times every target sample in BPF (readSampleCosts); one more clock read per sample.
  bool measureSampleCost = false;
  // --off-cpu: loads and attaches the scheduler hooks (bpf/off_cpu.bpf.h), whose records come through the
  // same ring as CPU samples, one per offCpuIntervalNs of a thread's off-CPU time on average (0: every wait).
  bool offCpu = false;
  uint64_t offCpuIntervalNs = 1'000'000;
};

using SamplerCounters = std::array<uint64_t, JFRBPF_COUNTER_COUNT>;
// Sampling ticks: the sampling periods of target threads' CPU time that came due (bpf/thread_cpu_time.bpf.h):
// each became a sample or a counted loss.
inline uint64_t samplingTicks(const SamplerCounters& c) { return c[JFRBPF_COUNTER_SAMPLE_PERIODS]; }
using TimerCounters = std::array<uint64_t, JFRBPF_TIMER_COUNTER_COUNT>;
// Samples per JFRBPF_COST_BUCKET_NS of BPF time, summed over CPUs.
using SampleCostHistogram = std::vector<uint64_t>;

struct ThreadLoss {
  uint32_t tid;
  uint32_t tgid;
  uint64_t lostRingbufFull;  // cumulative since the thread was first charged
  uint64_t lostCpuNs;        // the CPU time those samples stood for
  uint64_t lostOffCpu;       // off-CPU records lost, cumulative
  uint64_t lostOffCpuNs;     // the off-CPU time they stood for
  uint64_t unsampled;        // --sampler cpu: periods of its CPU time no clock caught before it ended, cumulative
  uint64_t unsampledCpuNs;   // the CPU time they stood for
};

class BpfSampler final : public JvmKernelSide {
 public:
  explicit BpfSampler(const SamplerConfig& config);  // opens and loads; throws jfrbpf::Error
  ~BpfSampler();
  BpfSampler(const BpfSampler&) = delete;
  BpfSampler& operator=(const BpfSampler&) = delete;

  // Samples the process from now on. Its threads count their CPU time from `start` (threads that started
  // since: from their start), so that their samples stand for exactly what they use.
  void addTarget(uint32_t tgid, const ThreadCpuTimes& start);
  void removeTarget(uint32_t tgid);

  bool offCpuLoaded() const override { return offCpu_; }
  // As the recording stops, before the threads' CPU time is read: off-CPU waits are cut at `endNs`
  // (CLOCK_MONOTONIC), the end of the window that CPU time is read over.
  void endOffCpuWindow(uint64_t endNs);
  // Then, the run delays read at that end (`end` of process `tgid`): what the last records count up to.
  void setOffCpuRunDelayEnds(const ThreadCpuTimes& end);
  // With the off-CPU hooks detached: sends a record of every wait of a target thread still going on then,
  // up to the window's end, so that a thread that waits through the end is not missing from the file.
  // These have kernel frames only; a pass run by a thread of the process itself walks their user stacks:
  // offCpuFlushIterator(tgid) is one for process `tgid`'s threads, to be read there (its JVM agent), and
  // offCpuFlushPasses() counts the passes that ran to their end. Each thread is flushed once, by whichever
  // pass comes first.
  void flushOffCpu();
  UniqueFd offCpuFlushIterator(uint32_t tgid) override;
  uint64_t offCpuFlushPasses() const;
  // Attaches the sampling program to a perf event. The link is the sampler's until detach(), or the
  // caller's to release earlier with release() (a process that exited).
  bpf_link* attach(int perfEventFd);
  void release(bpf_link* link);
  void detach();

  // JvmKernelSide: the walker's maps of a JVM, and its probes.
  void setHotspot(uint32_t tgid, const jfrbpf_hotspot& layout) override;
  void forgetHotspot(uint32_t tgid) override;
  void setJavaThread(uint32_t tid, uint64_t javaThread) override;
  void forgetJavaThread(uint32_t tid) override;
  bool watchCodeFrees(uint32_t tgid, const std::string& libjvmPath, std::string& whyNot) override;
  void forgetProcess(uint32_t tgid);
  // Where process `tgid`'s threads keep their OpenTelemetry context: every record of it carries its thread's
  // from now on (bpf/thread_context.bpf.h).
  void setThreadContextLocation(uint32_t tgid, const jfrbpf_thread_context_location& location);

  int ringBufferMapFd() const;
  // The native unwind tables (bpf/unwind_abi.h): rows are copied into the row array at `firstRow`.
  void writeUnwindRows(uint32_t firstRow, std::span<const jfrbpf_unwind_row> rows);
  uint32_t unwindRowCapacity() const { return rowCapacity_; }
  void setUnwindFile(uint64_t fileId, const jfrbpf_unwind_file& file);
  void removeUnwindFile(uint64_t fileId);
  void setUnwindProcess(uint32_t tgid, const jfrbpf_unwind_process& process);
  SamplerCounters readCounters() const;        // summed over CPUs
  std::vector<ThreadLoss> readThreadLosses() const;
  // The ledger entries of `losses` (those of a process let go, read for the last time) go: the map is shared
  // by every thread the recording ever sees.
  void forgetThreadLosses(const std::vector<ThreadLoss>& losses);
  SampleCostHistogram readSampleCosts() const;  // empty unless SamplerConfig::measureSampleCost
  int programFd() const;

  // ---- method tracing (only with SamplerConfig::methodTraces) ----
  bool methodTracesLoaded() const { return methodTraces_; }
  // It stays until detachTraceProbes() or destruction.
  void attachTraceProbe(uint32_t pid, const std::string& path, uint64_t fileOffset, uint32_t agentSession) override;
  void detachTraceProbes();
  TimerCounters readTimerCounters() const;
  int traceRingBufferMapFd() const;
  // The trace probe program (for its run-time statistics); -1 when not loaded.
  int traceProgramFd() const;
  bool traceProbeHit(uint32_t tgid) const override;
  // --max-rate: the least CPU time between two samples of a thread from now on (0: the clocks' period).
  void setBudgetPeriod(uint64_t periodNs);

 private:
  // Attaches a tracepoint program loaded with the sampler; on failure frees everything and throws, saying what
  // `needs` it.
  void attachSchedulerHook(bpf_program* program, const char* needs);
  // Storage for the off-CPU state of its threads, their accounting starting at `addedNs` (bpf/off_cpu.bpf.h).
  void primeOffCpu(uint32_t tgid, uint64_t addedNs);
  void runTaskIterator(bpf_program* program, const char* what);
  void unwindMapsChanged();  // tells the walker its cached native unwind rows are stale
  void processMapsChanged();  // tells the sampler its cached targets and JVM layouts are stale
  void codeBlobsChanged();    // tells the walker the code blobs it checked are stale

  struct LinkDestroyer {
    void operator()(bpf_link* link) const;
  };
  using Link = std::unique_ptr<bpf_link, LinkDestroyer>;
  struct SkeletonDestroyer {
    void operator()(sampler* skeleton) const;
  };
  using Skeleton = std::unique_ptr<sampler, SkeletonDestroyer>;

  // The trace probe and the closing off-CPU pass each carry a copy of the stack walker, and neither is needed
  // for the first sample: a second instance of the object, sharing every map of the first, loads them in
  // the background (startLateLoad). lateProgram() waits for it; throws jfrbpf::Error if it failed.
  void startLateLoad();
  bpf_program* lateProgram(const char* name) const;

  sampler* skel_ = nullptr;
  std::shared_future<Skeleton> late_;
  std::vector<bpf_link*> links_;
  std::vector<bpf_link*> traceLinks_;
  std::mutex codeFreeProbesMutex_;  // JVMs come from the recorder's thread and go from the consumer's
  std::unordered_map<uint32_t, std::vector<Link>> codeFreeProbes_;  // by tgid
  std::vector<Link> schedulerLinks_;  // from load to detach()
  bool methodTraces_ = false;
  bool offCpu_ = false;
  bool measureSampleCost_ = false;
  uint32_t rowCapacity_ = 0;
};

}  // namespace jfrbpf::record
