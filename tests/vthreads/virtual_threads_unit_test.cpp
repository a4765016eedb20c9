// The pure parts of virtual thread samples: which Java thread a sample taken in a continuation belongs to,
// the virtual thread constants the writer puts in each chunk that refers to them (read back by the project's
// reader), and the converters' name for a group of them. The views' single row for all virtual threads is
// tested with the views (tests/view/view_virtual_threads_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "formats/convert/profile_builder.h"
#include "formats/jfr/reader/recording.h"
#include "formats/jfr/reader/standard_types.h"
#include "formats/jfr/writer/recording.h"
#include "tests/record/record_test_support.h"
#include "tests/support/durations.h"
#include "userspace/jvm/mounted_threads.h"

namespace jfrbpf {
namespace {

using ::jfrbpf::test::kMs;

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

}  // namespace
}  // namespace jfrbpf
