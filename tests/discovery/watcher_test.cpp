// The watcher reports JVMs that start after it, whether they map libjvm.so late or exec java long after
// starting, and reports exited and zombie JVMs as gone. "late_libjvm" stands in for a JVM where timing must be
// controlled: it maps a file named libjvm.so when told to.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "test_config.h"
#include "tests/discovery/process_state.h"
#include "tests/discovery/test_jvms.h"
#include "userspace/discovery/jvm_watcher.h"

namespace jfrbpf::discovery {
namespace {

using discovery_test::childOptions;
using discovery_test::kReadyTimeout;
using test::ChildProcess;
using namespace std::chrono_literals;

bool contains(const std::vector<pid_t>& pids, pid_t pid) { return std::find(pids.begin(), pids.end(), pid) != pids.end(); }

class ScratchDirectory {
 public:
  ScratchDirectory() {
    char path[] = "/tmp/jfrbpf-discovery-XXXXXX";
    if (::mkdtemp(path) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = path;
  }
  ~ScratchDirectory() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Polls until `pid` is reported as appeared; the time limit only guards against a hang.
bool pollUntilAppeared(JvmWatcher& watcher, pid_t pid, std::chrono::seconds limit = 30s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (contains(watcher.poll().appeared, pid)) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

TEST(DiscoveryWatcher, JvmStartedLaterAppearsAndIsGoneAfterExit) {
  JvmWatcher watcher;
  watcher.poll();
  ChildProcess jvm(discovery_test::sleeperCommand(test::kJdkHome, {}), childOptions());
  ASSERT_TRUE(jvm.awaitLine("ready", kReadyTimeout));
  // Not polled while it started: the next poll sees a new pid that already maps libjvm.so.
  JvmChanges changes = watcher.poll();
  EXPECT_TRUE(contains(changes.appeared, jvm.pid()));
  EXPECT_TRUE(contains(watcher.jvms(), jvm.pid()));
  EXPECT_FALSE(contains(watcher.poll().appeared, jvm.pid())) << "reported twice";

  const pid_t pid = jvm.pid();
  jvm.stop();
  changes = watcher.poll();
  EXPECT_TRUE(contains(changes.gone, pid));
  EXPECT_FALSE(contains(watcher.jvms(), pid));
  EXPECT_FALSE(contains(watcher.poll().gone, pid)) << "reported gone twice";
}

TEST(DiscoveryWatcher, FirstPollReportsJvmsAlreadyRunning) {
  ScratchDirectory scratch;
  ChildProcess fake({DISCOVERY_LATE_LIBJVM, scratch.path(), "now"}, childOptions());
  ASSERT_TRUE(fake.awaitLine("mapped", kReadyTimeout));
  JvmWatcher watcher;
  EXPECT_TRUE(contains(watcher.poll().appeared, fake.pid()));
}

TEST(DiscoveryWatcher, LibjvmMappedAfterFirstSightIsNoticedWhileYoung) {
  WatcherOptions options;
  options.youngWindow = std::chrono::minutes(10);  // however slow this host, the mapping happens while young
  options.execSweepInterval = std::chrono::hours(1);
  JvmWatcher watcher(options);
  watcher.poll();
  ScratchDirectory scratch;
  ChildProcess late({DISCOVERY_LATE_LIBJVM, scratch.path()}, childOptions());
  ASSERT_TRUE(discovery_test::waitForState(late.pid(), 'S'));
  EXPECT_FALSE(contains(watcher.poll().appeared, late.pid()));  // seen, not a JVM yet
  late.writeLine("go");
  ASSERT_TRUE(late.awaitLine("mapped", kReadyTimeout));
  EXPECT_TRUE(pollUntilAppeared(watcher, late.pid()));
}

TEST(DiscoveryWatcher, ExecIntoAJvmLongAfterStartIsNoticedByTheSweep) {
  WatcherOptions options;
  options.youngWindow = 0ms;  // only the exec sweep can notice it
  options.execSweepInterval = 0ms;
  JvmWatcher watcher(options);
  watcher.poll();
  ScratchDirectory scratch;
  // A wrapper script that waits, then execs the "JVM" (same pid).
  ChildProcess wrapper({"/bin/sh", "-c", "read line; exec \"$0\" \"$1\" now", DISCOVERY_LATE_LIBJVM, scratch.path()},
                       childOptions());
  ASSERT_TRUE(discovery_test::waitForState(wrapper.pid(), 'S'));
  EXPECT_FALSE(contains(watcher.poll().appeared, wrapper.pid()));
  wrapper.writeLine("go");
  ASSERT_TRUE(wrapper.awaitLine("mapped", kReadyTimeout));
  EXPECT_TRUE(contains(watcher.poll().appeared, wrapper.pid()));
}

TEST(DiscoveryWatcher, ZombieIsGoneBeforeItIsReaped) {
  ScratchDirectory scratch;
  ChildProcess fake({DISCOVERY_LATE_LIBJVM, scratch.path(), "now"}, childOptions());
  ASSERT_TRUE(fake.awaitLine("mapped", kReadyTimeout));
  JvmWatcher watcher;
  ASSERT_TRUE(contains(watcher.poll().appeared, fake.pid()));
  fake.signal(SIGKILL);  // not reaped: it stays a zombie
  ASSERT_TRUE(discovery_test::waitForState(fake.pid(), 'Z'));
  EXPECT_TRUE(contains(watcher.poll().gone, fake.pid()));
  EXPECT_FALSE(contains(watcher.jvms(), fake.pid()));
  EXPECT_FALSE(contains(watcher.poll().appeared, fake.pid()));
}

TEST(DiscoveryWatcher, SecondPollDoesNotReclassifyEveryProcess) {
  WatcherOptions options;
  options.execSweepInterval = std::chrono::hours(1);
  JvmWatcher watcher(options);
  watcher.poll();
  const uint64_t afterFirst = watcher.stats().mapsReads;
  ChildProcess sleeper({"sleep", "600"}, childOptions());
  watcher.poll();
  // The first poll classified every process once; the second one at most the new ones (ours, and whatever
  // else started on this shared host meanwhile) — never all of them again.
  EXPECT_GE(watcher.stats().mapsReads, afterFirst + 1);
  EXPECT_LT(watcher.stats().mapsReads - afterFirst, afterFirst);
}

}  // namespace
}  // namespace jfrbpf::discovery
