// JDK 25's own views over written files (`jfr view cpu-time-hot-methods`, `method-timing`, …) and a
// line-by-line comparison of the declared types with JDK 25's built-in metadata. Skipped without JDK 25.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "formats/jfr/writer/recording.h"
#include "tests/jfr/jdk_tools.h"
#include "tests/support/durations.h"

namespace jfrbpf::jfr {
namespace {

using ::jfrbpf::test::kMs;

// The whitespace-separated cells of the view line whose first column starts with `first`; empty if none.
std::vector<std::string> row(const std::string& view, const std::string& first) {
  std::istringstream lines(view);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(first, 0) != 0) continue;
    std::istringstream cells(line.substr(first.size()));
    std::vector<std::string> result{first};
    for (std::string cell; cells >> cell;) result.push_back(cell);
    return result;
  }
  return {};
}

class JfrWriterJdk25 : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (test::jdk25Home().empty()) return;
    dir = std::make_unique<test::TempDir>();
    path = dir->file("views.jfr");
    Recording r({.path = path,
                 .maxChunkBytes = 64 * 1024,
                 .settings = {{"jdk.CPUTimeSample", "enabled", "true"}, {"jdk.CPUTimeSample", "throttle", "10 ms"}}});
    ClassId work = r.internClass("com/example/Work", 1);
    MethodId compute = r.internMethod(work, "compute", "(I)J", 8);
    MethodId main = r.internMethod(work, "main", "([Ljava/lang/String;)V", 9);
    MethodId memcpy = r.internMethod(r.internClass("libc.so.6"), "memcpy", kNativeMethodDescriptor);
    MethodId syscall = r.internMethod(r.internClass("kernel"), "do_syscall_64", kNativeMethodDescriptor);
    ThreadId thread = r.internThread({"main", 321, "main", 1});
    std::vector<StackFrame> inCompute{{compute, 2, 28, FrameType::JitCompiled}, {main, 5, 21, FrameType::Interpreted}};
    std::vector<StackFrame> inLibc{{memcpy, -1, -1, FrameType::Native},
                                   {compute, 2, 28, FrameType::JitCompiled},
                                   {main, 5, 21, FrameType::Interpreted}};
    std::vector<StackFrame> inKernel{{syscall, -1, -1, FrameType::Native},
                                     {memcpy, -1, -1, FrameType::Native},
                                     {main, 6, 30, FrameType::Interpreted}};
    Ticks t = Recording::now();
    // 6000 samples in several chunks: 60 % compute, 30 % memcpy, 10 % kernel at the top.
    for (int i = 0; i < 6000; ++i) {
      int bucket = i % 10;
      const auto& frames = bucket < 6 ? inCompute : bucket < 9 ? inLibc : inKernel;
      r.cpuTimeSample(t + i * kMs / 10, frames, false, thread, false, 10 * kMs, bucket == 0);
    }
    r.cpuTimeSample(t, {}, false, thread, true, 10 * kMs, false);
    r.cpuTimeSamplesLost(t, 12, thread);
    r.methodTiming(t, compute, 56303, 50300, 53100, 845000);
    r.close();
    chunks = static_cast<int>(r.stats().chunks);
  }
  static void TearDownTestSuite() { dir.reset(); }
  void SetUp() override {
    if (!dir) GTEST_SKIP() << "no JDK 25 installed (JFRBPF_JDK25_HOME)";
  }
  static test::ToolResult view(const std::string& name) {
    return test::runJfr(test::jdk25Home(), {"view", "--width", "200", name, path});
  }

  static inline std::unique_ptr<test::TempDir> dir;
  static inline std::string path;
  static inline int chunks = 0;
};

TEST_F(JfrWriterJdk25, CpuTimeHotMethods) {
  ASSERT_GT(chunks, 1) << "the views must work across chunks";
  auto result = view("cpu-time-hot-methods");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(row(result.out, "com.example.Work.compute(int)"),
            (std::vector<std::string>{"com.example.Work.compute(int)", "3,600", "59.99%"}))
      << result.out;
  EXPECT_EQ(row(result.out, "libc.so.6.memcpy()"), (std::vector<std::string>{"libc.so.6.memcpy()", "1,800", "30.00%"}))
      << result.out;
  EXPECT_EQ(row(result.out, "kernel.do_syscall_64()"),
            (std::vector<std::string>{"kernel.do_syscall_64()", "600", "10.00%"}))
      << result.out;
}

TEST_F(JfrWriterJdk25, CpuTimeStatistics) {
  auto result = view("cpu-time-statistics");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("Successful Samples: 6,000"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Failed Samples: 1"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Biased Samples: 600"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Lost Samples: 12"), std::string::npos) << result.out;
}

TEST_F(JfrWriterJdk25, MethodTiming) {
  auto result = view("method-timing");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(row(result.out, "com.example.Work.compute(int)"),
            (std::vector<std::string>{"com.example.Work.compute(int)", "56,303", "0.050300", "ms", "0.053100", "ms",
                                      "0.845000", "ms"}))
      << result.out;
}

TEST_F(JfrWriterJdk25, ActiveSettingsNameTheEventTypes) {
  auto result = view("active-settings");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(row(result.out, "CPU Time Sample"), (std::vector<std::string>{"CPU Time Sample", "true", "10", "ms"}))
      << result.out;
  EXPECT_EQ(row(result.out, "Method Timing"), (std::vector<std::string>{"Method Timing", "true"})) << result.out;
  EXPECT_EQ(result.out.find("N/A"), std::string::npos) << "every setting id is a declared event type";
}

TEST_F(JfrWriterJdk25, PrintAndSummaryReadEveryChunk) {
  auto summary = test::runJfr(test::jdk25Home(), {"summary", path});
  ASSERT_EQ(summary.exitCode, 0) << summary.err;
  EXPECT_EQ(test::summaryChunks(summary.out), chunks);
  EXPECT_EQ(test::summaryCounts(summary.out)["jdk.CPUTimeSample"], 6001);
  auto print = test::runJfr(test::jdk25Home(), {"print", "--events", "CPUTimeSample", path});
  ASSERT_EQ(print.exitCode, 0) << print.err;
  EXPECT_EQ(print.err.find("Exception"), std::string::npos) << print.err;
  EXPECT_NE(print.out.find("libc.so.6.memcpy()"), std::string::npos);
}

// Every type both declare prints identically: same labels, descriptions, annotations and their order, field
// names, types and order, @Experimental exactly where JDK 25 has it.
// CPU samples written as both event types, some records standing for several periods: `jfr view
// hot-methods` (jdk.ExecutionSample) and `cpu-time-hot-methods` (jdk.CPUTimeSample) count the same samples.
TEST(JfrWriterJdk25Samples, BothViewsCountEverySampleOnce) {
  if (test::jdk25Home().empty()) GTEST_SKIP() << "no JDK 25 installed (JFRBPF_JDK25_HOME)";
  test::TempDir dir;
  const std::string path = dir.file("both.jfr");
  Recording r({.path = path, .maxChunkBytes = 64 * 1024, .sampleEvents = SampleEvents::kBoth});
  ClassId work = r.internClass("com/example/Work", 1);
  MethodId compute = r.internMethod(work, "compute", "(I)J", 8);
  MethodId poll = r.internMethod(work, "poll", "()V", 1);
  ThreadId thread = r.internThread({"main", 321, "main", 1});
  std::vector<StackFrame> inCompute{{compute, 2, 28, FrameType::JitCompiled}};
  std::vector<StackFrame> inPoll{{poll, 7, 3, FrameType::JitCompiled}};
  Ticks t = Recording::now();
  // 2,000 records of compute (one period each) and 500 of poll standing for 2 periods: 2,000 and 1,000 samples
  // in several chunks.
  for (int i = 0; i < 2500; ++i) {
    const bool polling = i % 5 == 0;
    r.cpuSample(t + i * kMs / 10, polling ? inPoll : inCompute, false, thread, false, 10 * kMs, polling ? 2 : 1);
  }
  r.close();
  ASSERT_GT(r.stats().chunks, 1u);
  for (const char* name : {"hot-methods", "cpu-time-hot-methods"}) {
    SCOPED_TRACE(name);
    auto result = test::runJfr(test::jdk25Home(), {"view", "--width", "200", name, path});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(row(result.out, "com.example.Work.compute(int)"),
              (std::vector<std::string>{"com.example.Work.compute(int)", "2,000", "66.67%"}))
        << result.out;
    EXPECT_EQ(row(result.out, "com.example.Work.poll()"),
              (std::vector<std::string>{"com.example.Work.poll()", "1,000", "33.33%"}))
        << result.out;
  }
}

TEST_F(JfrWriterJdk25, DeclaredTypesMatchJdk25Metadata) {
  auto ours = test::runJfr(test::jdk25Home(), {"metadata", path});
  auto jdk = test::runJfr(test::jdk25Home(), {"metadata"});
  ASSERT_EQ(ours.exitCode, 0) << ours.err;
  ASSERT_EQ(jdk.exitCode, 0) << jdk.err;
  auto ourBlocks = test::metadataBlocks(ours.out), jdkBlocks = test::metadataBlocks(jdk.out);
  int compared = 0;
  for (const auto& [name, block] : ourBlocks) {
    if (name.rfind("jfrbpf.", 0) == 0) continue;
    auto it = jdkBlocks.find(name);
    ASSERT_NE(it, jdkBlocks.end()) << name << " is not a JDK 25 type";
    EXPECT_EQ(block, it->second) << name;
    ++compared;
  }
  EXPECT_GE(compared, 40);
  for (const char* event : {"jdk.CPUTimeSample", "jdk.ExecutionSample", "jdk.types.ThreadState", "jdk.CPUTimeSamplesLost", "jdk.MethodTiming", "jdk.MethodTrace",
                            "jdk.ActiveRecording", "jdk.ActiveSetting", "jdk.OSInformation", "jdk.CPUInformation",
                            "jdk.JVMInformation", "jdk.types.StackTrace", "java.lang.Thread"})
    EXPECT_TRUE(ourBlocks.count(event)) << event;
}

}  // namespace
}  // namespace jfrbpf::jfr
