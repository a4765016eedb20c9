// jfrbpf under faults, as they come in production: the recorder killed (SIGKILL: the OOM killer, a node
// drain, a crashed sidecar) at any moment, from the attach to the steady recording; the target killed.
// For each: the JVM goes on, the file holds what was recorded up to the flush bound and opens in the JDK's
// own `jfr`, and nothing of jfrbpf's is left in the target's /tmp.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/faults/fault_support.h"
#include "tests/java_e2e/printed_samples.h"
#include "tests/java_e2e/workloads.h"
#include "userspace/attach/agent_staging.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// What jfrbpf left in a target's /tmp, for a target that shares our /tmp: agent copies no live recorder holds
// locked that were not there before `before` was taken (other test runs on the machine may leave theirs).
std::vector<std::string> stagedAgentCopies(const std::vector<std::string>& before = {}) {
  std::vector<std::string> copies;
  for (const auto& entry : fs::directory_iterator("/tmp")) {
    const std::string path = entry.path().string();
    if (attach::isStagingName(entry.path().filename().string()) && !lockedByAProcess(entry.path()) &&
        std::find(before.begin(), before.end(), path) == before.end()) {
      copies.push_back(path);
    }
  }
  return copies;
}

// A busy JVM the recordings attach to: four threads that burn CPU for a minute, with a /tmp of its own.
std::unique_ptr<Workload> busyJvm() { return jvmWithPrivateTmp("CpuShares", {"60"}, 4); }

// SIGKILL during the steady recording: the part file the recorder leaves is a valid recording as it is, holds
// every sample up to the flush bound before the kill, and `jfrbpf recover` makes the recording of it.
TEST(Faults, SigkillLosesAtMostTheFlushBoundAndLeavesAValidFile) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("faults-sigkill");
  auto jvm = busyJvm();
  const std::string out = dir.file("app.jfr");
  ChildProcess recorder({jfrbpfBinary(), "record", "-p", std::to_string(jvm->pid()), "-d", "60s", "-o", out},
                        {.captureStderr = true});
  // Once the first chunk is in the part file the recording runs; then a few flushes more.
  ASSERT_TRUE(awaitFirstChunk(dir.path())) << "no chunk was written";
  std::this_thread::sleep_for(3s);
  const BpfObjects bpf = bpfObjectsOf(recorder.pid());
  const int64_t killedAt = nanosOfDayNow();
  recorder.signal(SIGKILL);
  ASSERT_TRUE(recorder.wait(10s).has_value());
  ASSERT_GT(bpf.size(), 0u);
  // Its programs, maps and links go with its descriptors: the kernel holds nothing of it once it is gone.
  EXPECT_EQ(stillLoaded(bpf).size(), 0u) << stillLoaded(bpf).describe();

  std::vector<std::string> parts = partFiles(dir.path());
  ASSERT_EQ(parts.size(), 1u) << "the recorder leaves its part file";
  EXPECT_FALSE(fs::exists(out)) << "nothing was finished under the destination's name";
  std::vector<JfrSample> samples = printedSamples(parts[0]);  // the JDK's jfr reads it as it was left
  ASSERT_FALSE(samples.empty());
  const double lostSeconds = -lastSampleSecondsAfter(samples, killedAt);
  std::printf("[ figure ] %zu samples in the part file; the last %.2f s before the kill\n", samples.size(), lostSeconds);
  EXPECT_LT(lostSeconds, 2.0) << "a kill loses at most the flush bound (1 s) and one more flush check";
  EXPECT_EQ(jfrbpfFilesOf(jvm->pid()), std::vector<std::string>{}) << "the agent's copy is gone once the JVM loaded it";
  EXPECT_EQ(kill(jvm->pid(), 0), 0) << "the JVM goes on";

  RunResult recovered = run({jfrbpfBinary(), "recover", parts[0]});
  ASSERT_EQ(recovered.exitCode, 0) << recovered.output;
  EXPECT_NE(recovered.output.find("recovered"), std::string::npos) << recovered.output;
  EXPECT_FALSE(fs::exists(parts[0]));
  EXPECT_EQ(readRecording(out).samples.size(), samples.size()) << "the recovered recording holds every complete chunk";

  // The JVM serves the next recording at once, and that recorder removes the dump socket the killed one left.
  const fs::path dumpSocket = "/run/jfrbpf/" + std::to_string(recorder.pid()) + ".sock";
  EXPECT_TRUE(fs::exists(dumpSocket)) << "SIGKILL gives no chance to remove it";
  RunResult again = recordPid(jvm->pid(), dir.file("again.jfr"), "1s");
  EXPECT_EQ(again.exitCode, 0) << again.output;
  EXPECT_FALSE(fs::exists(dumpSocket));
}

// SIGKILL anywhere in the attach (the agent's copy staged in the target's /tmp, loaded, its session begun):
// the JVM goes on, and no copy is left behind once the next recording has attached.
TEST(Faults, SigkillDuringTheAttachLeavesNoAgentCopyBehind) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("faults-attach");
  auto jvm = busyJvm();
  for (int delayMs : {50, 150, 300, 500, 800, 1200}) {
    SCOPED_TRACE("killed " + std::to_string(delayMs) + " ms after its start");
    ChildProcess recorder({jfrbpfBinary(), "record", "-p", std::to_string(jvm->pid()), "-d", "30s", "-o",
                           dir.file("attach-" + std::to_string(delayMs) + ".jfr")},
                          {.captureStderr = true});
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    const BpfObjects bpf = bpfObjectsOf(recorder.pid());
    recorder.signal(SIGKILL);
    ASSERT_TRUE(recorder.wait(10s).has_value());
    ASSERT_EQ(kill(jvm->pid(), 0), 0) << "the JVM goes on";
    EXPECT_EQ(stillLoaded(bpf).size(), 0u) << stillLoaded(bpf).describe();
  }
  // A copy (or HotSpot's attach trigger) whose recorder died before it could remove it is the next attach's to
  // remove.
  RunResult next = recordPid(jvm->pid(), dir.file("next.jfr"), "1s");
  ASSERT_EQ(next.exitCode, 0) << next.output;
  EXPECT_EQ(jfrbpfFilesOf(jvm->pid()), std::vector<std::string>{});
  EXPECT_GT(readRecording(dir.file("next.jfr")).samples.size(), 0u);
}

// The target JVM killed at any moment, from the attach on: either it died before the recording began (one
// line, exit code 4, no file) or the recording ends with it (a valid file, exit code 0); never anything left
// in its /tmp.
TEST(Faults, TargetKilledAtAnyMomentEndsCleanly) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("faults-target");
  const std::vector<std::string> before = stagedAgentCopies();
  for (int delayMs : {100, 400, 900, 2500}) {
    SCOPED_TRACE("the JVM killed " + std::to_string(delayMs) + " ms after jfrbpf started");
    // It shares our /tmp, which outlives it: what jfrbpf staged there must go although the JVM died.
    auto jvm = std::make_unique<Workload>(javaCommand(17, {}, "CpuShares", {"60"}), 4);
    const std::string out = dir.file("target-" + std::to_string(delayMs) + ".jfr");
    ChildProcess recorder({jfrbpfBinary(), "record", "-p", std::to_string(jvm->pid()), "-d", "30s", "-o", out},
                          {.captureStderr = true});
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    kill(jvm->pid(), SIGKILL);
    std::optional<int> code = recorder.wait(60s);
    std::string output = recorder.readAll(1s);
    ASSERT_TRUE(code.has_value()) << output;
    if (*code == 4) {
      EXPECT_NE(output.find("exited"), std::string::npos) << output;
      EXPECT_FALSE(fs::exists(out));
    } else {
      ASSERT_EQ(*code, 0) << output;
      EXPECT_NE(output.find("target exited"), std::string::npos) << output;
      EXPECT_EQ(run({jdkTool("jfr"), "summary", out}).exitCode, 0) << out;
    }
    EXPECT_TRUE(partFiles(dir.path()).empty()) << output;
    EXPECT_EQ(stagedAgentCopies(before), std::vector<std::string>{}) << output;
  }
}

}  // namespace
}  // namespace jfrbpf::test
