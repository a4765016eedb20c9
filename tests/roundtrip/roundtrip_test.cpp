// The project's writer and reader agree: every event type jfrbpf writes reads back with the same values,
// across chunk rotations.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <vector>

#include "formats/jfr/reader/recording.h"
#include "formats/jfr/writer/recording.h"

namespace jfrbpf {
namespace {

using namespace jfr::reader;

class RoundTrip : public ::testing::Test {
 protected:
  std::string path_ = (std::filesystem::temp_directory_path() / ("jfrbpf-roundtrip-" + std::to_string(getpid()) + ".jfr")).string();
  void TearDown() override { std::filesystem::remove(path_); }
};

TEST_F(RoundTrip, EveryEventTypeReadsBackWithItsValues) {
  const jfr::Ticks t0 = jfr::Recording::now();
  {
    jfr::RecordingOptions options;
    options.path = path_;
    options.settings = {{"jdk.CPUTimeSample", "throttle", "10 ms"}};
    jfr::Recording out(options);
    jfr::ClassId work = out.internClass("com/example/Work", 0x1);
    jfr::ClassId libc = out.internClass("libc.so.6");
    jfr::MethodId compute = out.internMethod(work, "compute", "(I)J", 0x9);
    jfr::MethodId memcpy = out.internMethod(libc, "memcpy", jfr::kNativeMethodDescriptor);
    jfr::ThreadId worker = out.internThread({"worker-1", 4242, "worker-1", 17, false});
    std::vector<jfr::StackFrame> frames = {{memcpy, -1, -1, jfr::FrameType::Native},
                                           {compute, 42, 7, jfr::FrameType::JitCompiled}};
    out.cpuTimeSample(t0 + 1000, frames, false, worker, false, 10'000'000, false);
    out.rotate();  // constants must be written again in the second chunk
    out.cpuTimeSample(t0 + 2000, frames, true, worker, false, 20'000'000, true);
    out.cpuTimeSample(t0 + 2500, {}, false, worker, true, 10'000'000, false);
    out.cpuTimeSamplesLost(t0 + 3000, 5, worker);
    out.methodTiming(t0 + 4000, compute, 100, 1500, 2000, 9000);
    out.methodTrace(t0 + 5000, 123'456, worker, std::span(frames).subspan(1), false, compute);
    out.sampleLoss(t0 + 6000, worker, "ring buffer full", 5);
    out.note(t0 + 7000, "warning", "attach refused");
    out.close();
  }

  Recording recording = Recording::open(path_);
  EXPECT_EQ(recording.chunks().size(), 2u);
  std::map<std::string, int> counts;
  std::vector<bool> truncated, failed, biased;
  std::vector<int64_t> periods;
  recording.forEachEvent([&](const RecordedEvent& e) {
    const std::string& type = e.type().name;
    counts[type]++;
    if (type == "jdk.CPUTimeSample") {
      auto thread = threadOf(e);
      ASSERT_TRUE(thread);
      EXPECT_EQ(thread->osThreadId, 4242);
      EXPECT_EQ(thread->javaName, "worker-1");
      EXPECT_EQ(thread->javaThreadId, 17);
      StackTraceView trace(e.get("stackTrace"));
      failed.push_back(e.getBool("failed"));
      biased.push_back(e.getBool("biased"));
      periods.push_back(e.getLong("samplingPeriod"));
      if (!trace.present()) return;
      truncated.push_back(trace.truncated());
      ASSERT_EQ(trace.size(), 2u);
      EXPECT_EQ(trace.frame(0).className, "libc.so.6");
      EXPECT_EQ(trace.frame(0).methodName, "memcpy");
      EXPECT_EQ(trace.frame(0).type, "Native");
      EXPECT_EQ(trace.frame(1).className, "com/example/Work");
      EXPECT_EQ(trace.frame(1).methodName, "compute");
      EXPECT_EQ(trace.frame(1).descriptor, "(I)J");
      EXPECT_EQ(trace.frame(1).lineNumber, 42);
      EXPECT_EQ(trace.frame(1).bytecodeIndex, 7);
      EXPECT_EQ(trace.frame(1).type, "JIT compiled");
    } else if (type == "jdk.CPUTimeSamplesLost") {
      EXPECT_EQ(e.getLong("lostSamples"), 5);
    } else if (type == "jdk.MethodTiming") {
      EXPECT_EQ(e.getLong("invocations"), 100);
      EXPECT_EQ(e.getLong("minimum"), 1500);
      EXPECT_EQ(e.getLong("average"), 2000);
      EXPECT_EQ(e.getLong("maximum"), 9000);
      auto method = methodInfo(e.get("method"));
      ASSERT_TRUE(method);
    } else if (type == "jdk.MethodTrace") {
      EXPECT_EQ(e.durationNanos(), 123'456);
      EXPECT_EQ(StackTraceView(e.get("stackTrace")).frame(0).methodName, "compute");
    } else if (type == "jfrbpf.SampleLoss") {
      EXPECT_EQ(e.getString("cause"), "ring buffer full");
      EXPECT_EQ(e.getLong("lostSamples"), 5);
    } else if (type == "jfrbpf.Note") {
      EXPECT_EQ(e.getString("severity"), "warning");
      EXPECT_EQ(e.getString("message"), "attach refused");
    }
  });
  EXPECT_EQ(counts["jdk.CPUTimeSample"], 3);
  EXPECT_EQ(counts["jdk.CPUTimeSamplesLost"], 1);
  EXPECT_EQ(counts["jdk.MethodTiming"], 1);
  EXPECT_EQ(counts["jdk.MethodTrace"], 1);
  EXPECT_EQ(counts["jfrbpf.SampleLoss"], 1);
  EXPECT_EQ(counts["jfrbpf.Note"], 1);
  EXPECT_EQ(counts["jdk.ActiveRecording"], 2) << "every chunk describes the recording";
  EXPECT_EQ(truncated, (std::vector<bool>{false, true}));
  EXPECT_EQ(failed, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(biased, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(periods, (std::vector<int64_t>{10'000'000, 20'000'000, 10'000'000}));
}

}  // namespace
}  // namespace jfrbpf
