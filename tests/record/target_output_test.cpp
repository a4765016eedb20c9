// One output on raw records as the BPF sampler writes them, without root or BPF: CPU samples of this very
// process (each standing for whole sampling periods), an off-CPU wait (the off-CPU source's writer's), a
// walk that stopped short and the sampler's losses become one file, read back, whose counts are those the
// summary and the source's report give.
#include "userspace/record/output/target_output.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>
#include <memory>

#include "formats/jfr/writer/recording.h"
#include "tests/jfr/jdk_tools.h"
#include "tests/support/recorded_samples.h"
#include "userspace/record/sampling/thread_cpu_times.h"
#include "userspace/record/sources/off_cpu_source.h"

extern "C" __attribute__((noinline)) int jfrbpf_output_leaf(int x) { return x * 5 + 1; }
extern "C" __attribute__((noinline)) int jfrbpf_output_caller(int x) { return jfrbpf_output_leaf(x) + 3; }

namespace jfrbpf::record {
namespace {

constexpr int64_t kPeriodNs = 10'000'000;

// The kernel side of a process that is no JVM: nothing of a JVM may be asked of it.
class NoJvmKernelSide final : public JvmKernelSide {
 public:
  explicit NoJvmKernelSide(bool offCpu) : offCpu_(offCpu) {}
  void setHotspot(uint32_t, const jfrbpf_hotspot&) override { ADD_FAILURE() << "setHotspot"; }
  void forgetHotspot(uint32_t) override {}
  void setJavaThread(uint32_t, uint64_t) override { ADD_FAILURE() << "setJavaThread"; }
  void forgetJavaThread(uint32_t) override {}
  bool watchCodeFrees(uint32_t, const std::string&, std::string&) override { return false; }
  void attachTraceProbe(uint32_t, const std::string&, uint64_t, uint32_t) override { ADD_FAILURE() << "trace probe"; }
  bool traceProbeHit(uint32_t) const override { return false; }
  bool offCpuLoaded() const override { return offCpu_; }
  UniqueFd offCpuFlushIterator(uint32_t) override { return UniqueFd(); }

 private:
  bool offCpu_;
};

uint64_t inside(int (*function)(int)) { return reinterpret_cast<uint64_t>(function) + 4; }

class TargetOutputTest : public ::testing::Test {
 protected:
  TargetOutputTest()
      : kernel_(symbolize::KernelSymbolizer::parse("ffffffff81000000 T do_test_syscall\n")),
        output_(std::make_unique<jfr::Recording>(jfr::RecordingOptions{.path = path_}), std::nullopt, kernelSide_,
                kernel_, native_, kPeriodNs, [this](const OutputParts& parts) {
                  SourceWriters writers;
                  writers.push_back(offCpu_->writerFor(parts));
                  return writers;
                }) {
    output_.beginTarget(getpid(), readThreadCpuTimes(getpid()));
  }

  // A record of this thread with the user frames `pcs` (leaf first, no Method*).
  jfrbpf_sample_record& record(std::initializer_list<uint64_t> pcs, jfrbpf_walk_end end, uint64_t cpuNs,
                               uint64_t periods, uint32_t flags = 0) {
    std::memset(record_.get(), 0, sizeof(jfrbpf_sample_record));
    record_->tgid = static_cast<uint32_t>(getpid());
    record_->tid = static_cast<uint32_t>(tid_);
    record_->time_ns = static_cast<uint64_t>(jfr::Recording::now());
    record_->user_depth = static_cast<uint16_t>(pcs.size());
    record_->walk_end = static_cast<uint16_t>(end);
    record_->flags = flags;
    record_->cpu_time_ns = cpuNs;
    record_->periods = periods;
    size_t i = 0;
    for (uint64_t pc : pcs) {
      record_->data[i++] = pc;
      record_->data[i++] = 0;
    }
    return *record_;
  }

  const pid_t tid_ = static_cast<pid_t>(syscall(SYS_gettid));
  test::TempDir dir_;
  const std::string path_ = dir_.file("output.jfr");
  NoJvmKernelSide kernelSide_{/*offCpu=*/true};
  std::unique_ptr<EventSource> offCpu_ = offCpuSource({.enabled = true, .intervalNs = 1'000'000});
  symbolize::KernelSymbols kernel_;
  symbolize::ProcessSymbolizer native_;
  TargetOutput output_;
  std::unique_ptr<jfrbpf_sample_record> record_ = std::make_unique<jfrbpf_sample_record>();
};

TEST_F(TargetOutputTest, RecordsBecomeEventsWhoseCountsAreTheSummarys) {
  const uint64_t stack[] = {inside(jfrbpf_output_leaf), inside(jfrbpf_output_caller)};
  output_.onSample(record({stack[0], stack[1]}, JFRBPF_WALK_ROOT, kPeriodNs, 1));
  // A thread that used two periods since its last sample: two samples, the period each.
  output_.onSample(record({stack[0], stack[1]}, JFRBPF_WALK_ROOT, 2 * kPeriodNs, 2));
  output_.onSample(record({stack[0]}, JFRBPF_WALK_NO_UNWIND_INFO, kPeriodNs, 1));
  jfrbpf_sample_record& wait = record({stack[1]}, JFRBPF_WALK_ROOT, 3'000'000, 0, JFRBPF_SAMPLE_OFF_CPU);
  wait.off_cpu_ns = 5'000'000;
  wait.off_cpu_state = JFRBPF_OFF_CPU_SLEEPING;
  output_.onSample(wait);
  ThreadLoss loss{};
  loss.tid = static_cast<uint32_t>(tid_);
  loss.tgid = static_cast<uint32_t>(getpid());
  loss.lostRingbufFull = 4;
  loss.lostCpuNs = 4 * kPeriodNs;
  output_.periodicWork(jfr::Recording::now(), {loss});
  output_.endTarget(jfr::Recording::now(), getpid(), readThreadCpuTimes(getpid()));
  output_.finish(jfr::Recording::now(), /*finalTraces=*/true);

  RecordSummary summary;
  output_.addCountsTo(summary);
  EXPECT_EQ(summary.samples, 4u);
  EXPECT_EQ(summary.sampledCpuNs, 4u * kPeriodNs);
  EXPECT_EQ(summary.lost, 4u);
  summary.sources.push_back(offCpu_->report());
  ASSERT_NE(summary.source<OffCpuReport>(), nullptr);
  EXPECT_EQ(summary.source<OffCpuReport>()->samples, 1u);
  EXPECT_EQ(summary.source<OffCpuReport>()->ns, 3'000'000u);
  EXPECT_EQ(summary.stacks, 5u) << "4 CPU samples and the wait";
  EXPECT_EQ(summary.truncatedStacks, 1u);
  EXPECT_EQ(summary.truncatedByCause["no unwind info"], 1u);

  const test::Recorded recorded = test::readRecording(path_);
  ASSERT_EQ(recorded.samples.size(), 4u);
  size_t truncated = 0;
  for (const test::Sample& sample : recorded.samples) {
    EXPECT_EQ(sample.osThreadId, tid_);
    EXPECT_EQ(sample.samplingPeriod, kPeriodNs);
    EXPECT_TRUE(test::hasFrame(sample, "jfrbpf_output_leaf"));
    truncated += sample.truncated ? 1 : 0;
  }
  EXPECT_EQ(truncated, 1u);
  // What the file says the thread used: its samples and its lost samples, 8 periods.
  EXPECT_EQ(recorded.cpuNsByThread.at(tid_), 8 * kPeriodNs);
  EXPECT_EQ(recorded.lostByThread.at(tid_), 4);
  EXPECT_EQ(recorded.kernelCpuNsByThread.count(tid_), 1u) << "its jfrbpf.ThreadCPUTime";
  ASSERT_EQ(recorded.offCpuSamples.size(), 1u);
  EXPECT_EQ(recorded.offCpuSamples[0].weight, 3'000'000);
  EXPECT_EQ(recorded.offCpuSamples[0].duration, 5'000'000);
  EXPECT_TRUE(test::hasFrame(recorded.offCpuSamples[0].frames, "jfrbpf_output_caller"));
}

TEST_F(TargetOutputTest, ANoteIsInTheFile) {
  output_.note("warning", "something the user must know");
  output_.finish(jfr::Recording::now(), /*finalTraces=*/true);
  const test::Recorded recorded = test::readRecording(path_);
  ASSERT_EQ(recorded.notes.size(), 1u);
  EXPECT_EQ(recorded.notes[0], "something the user must know");
  EXPECT_EQ(output_.path(), path_);
  EXPECT_EQ(output_.fileCount(), 1u);
}

}  // namespace
}  // namespace jfrbpf::record
