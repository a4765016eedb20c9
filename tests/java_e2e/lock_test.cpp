// --lock on a real JVM: threads that block on one monitor and a thread that waits on another
// (tests/java_e2e/java/LockingThreads.java). Per thread, the time its jdk.JavaMonitorEnter or
// jdk.JavaMonitorWait events span against what the JVM itself counted it blocked or waited over the same
// span (ThreadInfo.getBlockedTime / getWaitedTime, stamped with System.nanoTime every 100 ms), the monitor's
// class, and the stack from the wait's site down to the thread's loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include "tests/java_e2e/workloads.h"
#include "tests/jfr/jdk_tools.h"
#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {
namespace {

class Locks : public ::testing::TestWithParam<int> {};

struct Stamp {
  int64_t nanos;
  int64_t blockedMs;
  int64_t waitedMs;
};

// "<thread> <nanoTime> <blockedMs> <waitedMs>" lines, by thread, in time order.
std::map<std::string, std::vector<Stamp>> readStamps(const std::string& path) {
  std::map<std::string, std::vector<Stamp>> stamps;
  std::ifstream in(path);
  std::string thread;
  Stamp stamp{};
  while (in >> thread >> stamp.nanos >> stamp.blockedMs >> stamp.waitedMs) stamps[thread].push_back(stamp);
  return stamps;
}

// How far a thread's waits may be from what the JVM counted: 5 %, the bound jfrbpf promises. Measured over 3
// runs of both JDKs on this VM: blocked threads -0.07..+0.04 %, the waiter -0.73..-0.52 % (the JVM's count
// also holds the monitor's re-entry after each 3-ms wait).
constexpr double kTolerance = 0.05;

enum class Kind { kBlocked, kWaiting, kParked };

struct Waiter {
  const char* thread;
  Kind kind;
  const char* monitorClass;  // as the file names it
  const char* site;          // the method that waits
  const char* loop;          // the thread's own loop, deeper on its stack
};

TEST_P(Locks, EachThreadsWaitsAddUpToWhatTheJvmCountedWithTheirClassAndSite) {
  const int jdk = GetParam();
  JAVA_E2E_REQUIRE(jdk);
  ScratchDir dir("lock-" + std::to_string(jdk));
  const std::string truthPath = dir.file("waited.txt");
  Workload workload(javaCommand(jdk, {}, "LockingThreads", {truthPath}), 7);
  const std::string out = dir.file("lock.jfr");
  // Lock events begin once their probe program is verified, in the background after sampling began: 0.3 s
  // later on a quiet VM, 2.3 s at a load of 8.5 on 2 CPUs, when 5 s left one blocked thread 16 events.
  RunResult r = recordPid(workload.pid(), out, "7s", {"--lock=0"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(linesWith(r.output, "locks ").size(), 1u) << r.output;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the workload's next stamps
  const std::map<std::string, std::vector<Stamp>> stamps = readStamps(truthPath);

  Recorded recorded = readRecording(out);
  std::vector<Waiter> waiters;
  for (const char* blocked : {"blocked-1", "blocked-2", "blocked-3"}) {
    waiters.push_back({blocked, Kind::kBlocked, "LockingThreads$Ledger", "enterLedger", "takeTurns"});
  }
  waiters.push_back({"waiter", Kind::kWaiting, "LockingThreads$Mailbox", "awaitMail", "waitForMail"});
  for (const char* parker : {"parker-1", "parker-2"}) {
    waiters.push_back({parker, Kind::kParked, "java/util/concurrent/locks/ReentrantLock$NonfairSync", "openVault",
                       "takeVaultTurns"});
  }
  size_t timedOut = 0, woken = 0;
  for (const Waiter& waiter : waiters) {
    SCOPED_TRACE(waiter.thread);
    const int64_t tid = workload.tid(waiter.thread);
    std::vector<const LockEvent*> events;
    for (const LockEvent& event : recorded.lockEvents) {
      const Kind kind = event.park ? Kind::kParked : event.wait ? Kind::kWaiting : Kind::kBlocked;
      if (event.osThreadId == tid && kind == waiter.kind) events.push_back(&event);
    }
    ASSERT_GE(events.size(), 50u) << r.output;
    std::sort(events.begin(), events.end(), [](auto* a, auto* b) { return a->startTime < b->startTime; });
    ASSERT_TRUE(stamps.count(waiter.thread)) << truthPath;
    const std::vector<Stamp>& own = stamps.at(waiter.thread);
    // The span: from the first stamp after the first event began to the last before the last one ended.
    const int64_t firstStart = events.front()->startTime;
    int64_t lastEnd = 0;
    for (const LockEvent* event : events) lastEnd = std::max(lastEnd, event->startTime + event->duration);
    auto from = std::find_if(own.begin(), own.end(), [&](const Stamp& s) { return s.nanos >= firstStart; });
    auto to = std::find_if(own.rbegin(), own.rend(), [&](const Stamp& s) { return s.nanos <= lastEnd; });
    ASSERT_TRUE(from != own.end() && to != own.rend()) << "the stamps cover the recording";
    const int64_t spanNs = to->nanos - from->nanos;
    ASSERT_GT(spanNs, 3'000'000'000) << "a span of most of the recording";

    double waited = 0;
    size_t ofClass = 0, atSite = 0, withLoop = 0, truncated = 0;
    std::string offSite, offLoop;  // the first event off the site, and without the thread's loop
    for (const LockEvent* event : events) {
      const int64_t start = std::max(event->startTime, from->nanos);
      const int64_t end = std::min(event->startTime + event->duration, to->nanos);
      if (end > start) waited += static_cast<double>(end - start);
      if (event->monitorClass == waiter.monitorClass) ++ofClass;
      // A wait's stack starts in Object.wait (JDK 17: wait(long), 25: wait0), a park's in Unsafe.park under
      // LockSupport and ReentrantLock: the site is below them.
      auto site = std::find_if(event->frames.begin(), event->frames.end(),
                               [](const SampleFrame& f) { return f.className == "LockingThreads"; });
      if (site != event->frames.end() && site->methodName == waiter.site &&
          (site == event->frames.begin() || waiter.kind != Kind::kBlocked)) {
        ++atSite;
      } else if (offSite.empty()) {
        for (const SampleFrame& f : event->frames) offSite += "\n  " + f.className + "." + f.methodName + " (" + f.type + ")";
      }
      truncated += event->truncated ? 1 : 0;
      if (hasFrame(event->frames, waiter.loop, "LockingThreads")) {
        ++withLoop;
      } else if (offLoop.empty()) {
        for (const SampleFrame& f : event->frames) offLoop += "\n  " + f.className + "." + f.methodName + " (" + f.type + ")";
      }
      (event->timedOut ? timedOut : woken) += waiter.kind == Kind::kWaiting ? 1 : 0;
      if (waiter.kind == Kind::kWaiting) EXPECT_EQ(event->timeout, 3) << "Object.wait(3)";
      if (waiter.kind == Kind::kParked) EXPECT_EQ(event->timeout, INT64_MIN) << "ReentrantLock.lock parks without one";
    }
    // The JVM counts parks as waited time.
    const double truth = 1e6 * static_cast<double>(waiter.kind != Kind::kBlocked ? to->waitedMs - from->waitedMs
                                                                                : to->blockedMs - from->blockedMs);
    std::printf("[ figure ] JDK %d %-9s %zu events, %.1f ms of %s within %.2f s against %.1f ms by the JVM (%+.2f %%); "
                "%zu stacks truncated\n",
                jdk, waiter.thread, events.size(), waited / 1e6,
                waiter.kind == Kind::kBlocked ? "blocking" : waiter.kind == Kind::kWaiting ? "waits" : "parks", spanNs / 1e9,
                truth / 1e6, 100 * (waited - truth) / truth, truncated);
    EXPECT_NEAR(waited, truth, kTolerance * truth) << "the waits against the JVM's count";
    EXPECT_EQ(ofClass, events.size()) << waiter.monitorClass;
    EXPECT_EQ(atSite, events.size()) << "the wait's site on top; e.g." << offSite;
    // The whole stack, down to the thread's loop and on to its root. (Before the JVM's events waited for its
    // process's unwind tables, 2-8 % of the walks stopped below libc's start_thread.)
    EXPECT_EQ(withLoop, events.size()) << "every Java stack whole, down to the thread's loop; e.g." << offLoop;
    EXPECT_EQ(truncated, 0u) << "every stack down to the thread's root";
  }
  EXPECT_GT(timedOut, 0u) << "waits that ran out";
  EXPECT_GT(woken, 0u) << "waits the notifier ended";

  ToolResult summary = runJfr(jdkHome(jdk), {"summary", out});
  ASSERT_EQ(summary.exitCode, 0) << summary.err;
  std::map<std::string, int64_t> counts = summaryCounts(summary.out);
  EXPECT_EQ(counts["jdk.JavaMonitorEnter"] + counts["jdk.JavaMonitorWait"] + counts["jdk.ThreadPark"],
            static_cast<int64_t>(recorded.lockEvents.size()));
  if (!jdkHome(25).empty()) {  // `jfr view` is JDK 21's and later
    ToolResult view = runJfr(jdkHome(25), {"view", "contention-by-site", out});
    ASSERT_EQ(view.exitCode, 0) << view.err;
    EXPECT_NE(view.out.find("LockingThreads.enterLedger()"), std::string::npos) << view.out;
  }
}

INSTANTIATE_TEST_SUITE_P(JavaE2E, Locks, ::testing::Values(17, 25), jdkTestName);

}  // namespace
}  // namespace jfrbpf::test
