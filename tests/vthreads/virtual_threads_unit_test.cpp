// The pure parts of virtual thread samples: which Java thread a sample taken in a continuation belongs to,
// the virtual thread constants the writer puts in each chunk that refers to them (read back by the project's
// reader), and the views' single row for all virtual threads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "formats/convert/convert.h"
#include "formats/convert/profile_builder.h"
#include "formats/jfr/reader/recording.h"
#include "formats/jfr/reader/standard_types.h"
#include "formats/jfr/writer/recording.h"
#include "tests/record/record_test_support.h"
#include "userspace/jvm/mounted_threads.h"
#include "userspace/view/recording_digest.h"
#include "userspace/view/views.h"

namespace jfrbpf {
namespace {

constexpr int64_t kMs = 1'000'000;

jvm::ThreadTable carriers() {
  jvm::ThreadTable threads;
  threads.started({.tid = 101, .nsTid = 101, .javaThreadId = 21, .name = "ForkJoinPool-1-worker-1"});
  threads.started({.tid = 102, .nsTid = 102, .javaThreadId = 22, .name = "ForkJoinPool-1-worker-2"});
  return threads;
}

TEST(MountedVirtualThread, AnotherIdThanTheCarriersIsTheMountedVirtualThread) {
  jvm::ThreadTable threads = carriers();
  EXPECT_EQ(jvm::mountedVirtualThread(threads, 101, 1000, 4711), 4711);
  EXPECT_EQ(jvm::mountedVirtualThread(threads, 102, 1000, 4712), 4712);
}

TEST(MountedVirtualThread, TheCarriersOwnIdIsTheCarrier) {
  // The instants of a mount or an unmount, or a continuation a platform thread runs itself.
  jvm::ThreadTable threads = carriers();
  EXPECT_EQ(jvm::mountedVirtualThread(threads, 101, 1000, 21), 0);
}

TEST(MountedVirtualThread, AnyPlatformThreadsIdOrNoneIsNoVirtualThread) {
  jvm::ThreadTable threads = carriers();
  EXPECT_EQ(jvm::mountedVirtualThread(threads, 101, 1000, 22), 0);  // a platform thread's: not a virtual one
  EXPECT_EQ(jvm::mountedVirtualThread(threads, 101, 1000, 0), 0);
  EXPECT_EQ(jvm::mountedVirtualThread(threads, 101, 1000, -1), 0);
  // A carrier the agent has not told its tid yet is still known as a platform thread by its Java id.
  threads.started({.tid = 0, .nsTid = 0, .javaThreadId = 23, .name = "ForkJoinPool-1-worker-3"});
  EXPECT_EQ(jvm::mountedVirtualThread(threads, 103, 1000, 23), 0);
  // An OS thread the agent never reported: an id of no known platform thread is a virtual thread's.
  EXPECT_EQ(jvm::mountedVirtualThread(threads, 104, 1000, 4713), 4713);
}

struct ReadThread {
  std::string osName;
  int64_t osThreadId;
  std::string javaName;
  int64_t javaThreadId;
  bool isVirtual;
};

// jdk.CPUTimeSample's eventThread, in order, with the chunk each was in.
std::vector<std::pair<size_t, ReadThread>> sampleThreads(const std::string& path) {
  std::vector<std::pair<size_t, ReadThread>> threads;
  auto recording = jfr::reader::Recording::open(path);
  size_t chunk = 0;
  recording.forEachChunk([&](const jfr::reader::Chunk& c) {
    c.forEachEvent(
        [&](const jfr::reader::RecordedEvent& e) {
          auto info = jfr::reader::threadOf(e);
          if (!info) return;
          threads.push_back({chunk, {std::string(info->osName), info->osThreadId, std::string(info->javaName),
                                     info->javaThreadId, info->virtualThread}});
        },
        [](const jfr::reader::TypeInfo& type) { return type.name == "jdk.CPUTimeSample"; });
    ++chunk;
  });
  return threads;
}

TEST(VirtualThreadConstants, EachChunkHoldsTheVirtualThreadsItRefersTo) {
  test::ScratchDir dir("vthreads-constants");
  std::string path = dir.file("virtual.jfr");
  {
    jfr::Recording r({.path = path, .settings = {{"jdk.CPUTimeSample", "enabled", "true"}}});
    jfr::MethodId compute = r.internMethod(r.internClass("Work", 1), "compute", "()V", 9);
    std::vector<jfr::StackFrame> frames{{compute, 3, 5, jfr::FrameType::JitCompiled}};
    jfr::ThreadId carrier = r.internThread({"ForkJoinPool-1-worker-1", 101, "ForkJoinPool-1-worker-1", 21});
    jfr::Ticks t = jfr::Recording::now();
    r.cpuSample(t, frames, false, jfr::EventThread::virtualThread(4711), false, 10 * kMs, 2);
    r.cpuSample(t + kMs, frames, false, carrier, false, 10 * kMs);
    r.cpuSample(t + 2 * kMs, frames, false, jfr::EventThread::virtualThread(4712), false, 10 * kMs);
    r.rotate();
    r.cpuSample(t + 3 * kMs, frames, false, jfr::EventThread::virtualThread(4711), false, 10 * kMs);
    r.close();
  }
  auto threads = sampleThreads(path);
  ASSERT_EQ(threads.size(), 5u);
  const std::vector<std::pair<size_t, int64_t>> expected = {{0, 4711}, {0, 4711}, {0, 21}, {0, 4712}, {1, 4711}};
  for (size_t i = 0; i < threads.size(); ++i) {
    const auto& [chunk, thread] = threads[i];
    EXPECT_EQ(chunk, expected[i].first) << i;
    EXPECT_EQ(thread.javaThreadId, expected[i].second) << i;
    if (thread.javaThreadId == 21) {
      EXPECT_FALSE(thread.isVirtual);
      EXPECT_EQ(thread.osThreadId, 101);
      EXPECT_EQ(thread.javaName, "ForkJoinPool-1-worker-1");
      continue;
    }
    // As JDK 25 writes an unnamed virtual thread: no OS thread, an empty Java name.
    EXPECT_TRUE(thread.isVirtual) << i;
    EXPECT_EQ(thread.osThreadId, 0) << i;
    EXPECT_EQ(thread.osName, "") << i;
    EXPECT_EQ(thread.javaName, "") << i;
  }
}

// A virtual thread named once (by a wait the agent reported) carries its name in the chunk that referred to it
// before, and in later chunks; the others stay unnamed, as the JDK writes them.
TEST(VirtualThreadConstants, ANamedVirtualThreadKeepsItsNameInEveryChunk) {
  test::ScratchDir dir("vthreads-names");
  std::string path = dir.file("named.jfr");
  {
    jfr::Recording r({.path = path, .settings = {{"jdk.CPUTimeSample", "enabled", "true"}}});
    jfr::MethodId compute = r.internMethod(r.internClass("Work", 1), "compute", "()V", 9);
    std::vector<jfr::StackFrame> frames{{compute, 3, 5, jfr::FrameType::JitCompiled}};
    jfr::Ticks t = jfr::Recording::now();
    r.cpuSample(t, frames, false, jfr::EventThread::virtualThread(4711), false, 10 * kMs);
    r.cpuSample(t + kMs, frames, false, jfr::EventThread::virtualThread(4712), false, 10 * kMs);
    r.nameVirtualThread(4711, "handler-7");
    r.rotate();
    r.cpuSample(t + 2 * kMs, frames, false, jfr::EventThread::virtualThread(4711), false, 10 * kMs);
    r.close();
  }
  auto threads = sampleThreads(path);
  ASSERT_EQ(threads.size(), 3u);
  EXPECT_EQ(threads[0].second.javaName, "handler-7");
  EXPECT_EQ(threads[1].second.javaName, "");
  EXPECT_EQ(threads[2].second.javaName, "handler-7");
  for (const auto& [chunk, thread] : threads) EXPECT_TRUE(thread.isVirtual);
}

TEST(VirtualThreadConstants, ConvertersGroupNamedVirtualThreadsByTheirNumberedName) {
  EXPECT_EQ(convert::virtualThreadGroupName("handler-17"), "handler-*");
  EXPECT_EQ(convert::virtualThreadGroupName("worker"), "worker");
  EXPECT_EQ(convert::virtualThreadGroupName("42"), "42");
  EXPECT_EQ(convert::virtualThreadGroupName("pool-2-thread-310"), "pool-2-thread-*");
}

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
  test::ScratchDir dir("vthreads-view");
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
  test::ScratchDir dir("vthreads-waits-view");
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
}  // namespace jfrbpf
