// The views' single row for all virtual threads (and the converters' single root for their waits), on
// recordings of hundreds of them written with the project's writer.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "formats/convert/convert.h"
#include "formats/jfr/writer/recording.h"
#include "tests/support/durations.h"
#include "tests/view/view_test_support.h"
#include "userspace/view/recording_digest.h"
#include "userspace/view/views.h"

namespace jfrbpf::test {
namespace {

// The lines of `view` that start with `name` followed by a space.
std::vector<std::string> rowsOf(const std::string& view, const std::string& name) {
  std::vector<std::string> rows;
  std::istringstream lines(view);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(name + " ")) rows.push_back(line);
  }
  return rows;
}

TEST(ThreadsViewOfVirtualThreads, OneRowForAllVirtualThreadsBesideTheCarriers) {
  TempDir dir;
  std::string path = dir.file("virtual.jfr");
  {
    jfr::Recording r({.path = path, .settings = {{"jdk.CPUTimeSample", "enabled", "true"}}});
    jfr::MethodId compute = r.internMethod(r.internClass("Work", 1), "compute", "()V", 9);
    jfr::MethodId schedule = r.internMethod(r.internClass("Scheduler", 1), "schedule", "()V", 9);
    std::vector<jfr::StackFrame> inCompute{{compute, 3, 5, jfr::FrameType::JitCompiled}};
    std::vector<jfr::StackFrame> inSchedule{{schedule, 7, 2, jfr::FrameType::JitCompiled}};
    jfr::ThreadId carrier = r.internThread({"ForkJoinPool-1-worker-1", 101, "ForkJoinPool-1-worker-1", 21});
    jfr::Ticks t = jfr::Recording::now();
    for (int64_t id = 1000; id < 1300; ++id) {  // 300 virtual threads, 600 samples
      r.cpuSample(t + id, inCompute, false, jfr::EventThread::virtualThread(id), false, 10 * kMs, 2);
    }
    r.cpuSample(t + 2000, inSchedule, false, carrier, false, 10 * kMs, 5);
    r.close();
  }
  view::RecordingDigest digest = view::digestRecording(path, {});
  std::string table = view::threadsView(digest, {.width = 200, .top = 25, .stackDepth = 5});
  auto virtualRows = rowsOf(table, "virtual threads (300)");
  ASSERT_EQ(virtualRows.size(), 1u) << table;
  EXPECT_NE(virtualRows[0].find(" 600 "), std::string::npos) << table;
  EXPECT_NE(virtualRows[0].find("Work.compute"), std::string::npos) << table;
  auto carrierRows = rowsOf(table, "ForkJoinPool-1-worker-1");
  ASSERT_EQ(carrierRows.size(), 1u) << table;
  EXPECT_NE(carrierRows[0].find(" 5 "), std::string::npos) << table;
  EXPECT_NE(carrierRows[0].find("Scheduler.schedule"), std::string::npos) << table;
  EXPECT_EQ(table.find("[virtual thread"), std::string::npos) << "no row per virtual thread:\n" << table;
  // Virtual threads first: they have more samples.
  EXPECT_LT(table.find("virtual threads (300)"), table.find("ForkJoinPool-1-worker-1")) << table;
}

// The waits of many virtual threads: one row in the off-CPU view, one root in a converted profile (by name:
// unnamed ones are "[virtual threads]"), beside a carrier's own.
TEST(ThreadsViewOfVirtualThreads, WaitsOfManyVirtualThreadsAreOneRowAndOneRoot) {
  TempDir dir;
  std::string path = dir.file("waits.jfr");
  {
    jfr::Recording r({.path = path, .settings = {}});
    jfr::MethodId park = r.internMethod(r.internClass("java/lang/VirtualThread", 0), "parkNanos", "(J)V", 0);
    std::vector<jfr::StackFrame> parked{{park, 1, 10, jfr::FrameType::JitCompiled}};
    jfr::ThreadId carrier = r.internThread({"ForkJoinPool-1-worker-1", 101, "ForkJoinPool-1-worker-1", 21});
    jfr::Ticks t = jfr::Recording::now();
    for (int64_t id = 1000; id < 1300; ++id) {  // 300 virtual threads, 20 ms each
      r.offCpuSample(t + id, 20 * kMs, jfr::EventThread::virtualThread(id), parked, false, 20 * kMs, "parked", 0);
    }
    r.offCpuSample(t + 2000, 5 * kMs, carrier, parked, false, 5 * kMs, "sleeping", 0);
    r.close();
  }
  view::RecordingDigest digest = view::digestRecording(path, {});
  std::string table = view::offCpuView(digest, {.width = 200, .top = 25, .stackDepth = 5});
  auto virtualRows = rowsOf(table, "virtual threads (300)");
  ASSERT_EQ(virtualRows.size(), 1u) << table;
  EXPECT_NE(virtualRows[0].find("6.00 s"), std::string::npos) << table;
  EXPECT_EQ(table.find("[virtual thread"), std::string::npos) << "no row per virtual thread:\n" << table;

  std::string collapsed = dir.file("waits.collapsed");
  convert::ConvertOptions options;
  options.time = convert::TimeKind::kOffCpu;
  options.collapsed.threadRoots = true;
  options.collapsed.weight = convert::Weight::kCpuTime;  // the time the waits stand for, as convert --off-cpu
  convert::convertRecording(path, convert::Format::kCollapsed, collapsed, options);
  std::ifstream in(collapsed);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "[ForkJoinPool-1-worker-1 tid=101];java.lang.VirtualThread.parkNanos(long) 5000000");
  EXPECT_EQ(lines[1], "[[virtual threads] tid=0];java.lang.VirtualThread.parkNanos(long) 6000000000");
}

}  // namespace
}  // namespace jfrbpf::test
