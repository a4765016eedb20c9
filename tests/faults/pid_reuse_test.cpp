// A target whose pid is reused: the JVM exits (killed here) and the kernel gives its pid to a new process
// (forced through /proc/sys/kernel/ns_last_pid) while jfrbpf is attaching or recording. Nothing of the new
// process may be recorded as the old target: jfrbpf pins its targets by pidfd from the start, lets a target go
// as soon as it exits, and its sampler refuses a process younger than its target entry.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "tests/faults/fault_support.h"
#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A frame of the impostor: native_chain's own code, which no target runs.
bool impostorFrame(const SampleFrame& frame) {
  return frame.methodName.starts_with("chain_") || frame.methodName == "syscall_spin";
}

// The impostor's threads as it announces them ("ready <name> <tid>"): main and two workers.
std::set<int64_t> impostorThreads(ChildProcess& impostor) {
  std::set<int64_t> tids{impostor.pid()};
  WorkerThreads threads;
  for (int i = 0; i < 2; ++i) {
    if (auto line = impostor.readLine(10s)) addAnnouncedThread(*line, threads);
  }
  for (const auto& [name, thread] : threads) tids.insert(thread.tid);
  return tids;
}

// The JVM dies while jfrbpf waits for it to answer the attach, and its pid goes to another process at once:
// jfrbpf says the target exited before the recording started (exit code 4) and records nothing, instead of
// profiling the process that got the pid.
TEST(FaultPidReuse, ATargetThatExitsDuringTheAttachIsNotFollowedToTheNextProcessWithItsPid) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("faults-pid-attach");
  auto jvm = jvmWithPrivateTmp("CpuShares", {"120"}, 4);
  const pid_t pid = jvm->pid();
  UniqueFd held = holdAttachListener(pid);  // the recorder waits in the attach until the JVM is gone
  ASSERT_TRUE(held);
  const std::string out = dir.file("reused.jfr");
  ChildProcess recorder({jfrbpfBinary(), "record", "-p", std::to_string(pid), "-d", "20s", "-o", out},
                        {.captureStderr = true, .extraEnv = {}});
  // In the attach once its BPF programs are loaded: the load request cannot be answered while `held` is open.
  BpfObjects bpf;
  for (auto until = Clock::now() + 60s; bpf.programs.empty() && Clock::now() < until;) {
    std::this_thread::sleep_for(10ms);
    bpf = bpfObjectsOf(recorder.pid());
  }
  ASSERT_FALSE(bpf.programs.empty()) << recorder.readAll(1s);
  // Descheduled (as on a loaded machine) while the JVM dies and its pid is taken: the recorder learns of both
  // only when it runs again.
  recorder.signal(SIGSTOP);
  jvm.reset();  // killed and reaped: its pid is free
  held.reset();
  std::string why;
  std::unique_ptr<ChildProcess> impostor = spawnWithPid(pid, {nativeChainBinary()}, why);
  recorder.signal(SIGCONT);
  if (!impostor) GTEST_SKIP() << "cannot reuse pid " << pid << ": " << why;

  std::optional<int> code = recorder.wait(120s);
  const std::string output = recorder.readAll(1s);
  EXPECT_EQ(code.value_or(-1), 4) << output;
  EXPECT_NE(output.find("process " + std::to_string(pid) + " exited before the recording started"), std::string::npos)
      << output;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(partFiles(dir.path()), std::vector<std::string>{});
  EXPECT_EQ(stillLoaded(bpf).size(), 0u) << stillLoaded(bpf).describe();
  EXPECT_EQ(kill(impostor->pid(), 0), 0) << "the process that got the pid is left alone";
}

// Two targets, sampled by per-CPU clocks (which see every process on the machine): one JVM exits mid-recording
// and a new process gets its pid while the recording goes on with the other. The recording says the JVM
// exited and holds none of the new process's samples or CPU times.
TEST(FaultPidReuse, ATargetThatExitsMidRecordingIsLetGoBeforeItsPidIsReused) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("faults-pid-mid");
  auto jvm = jvmWithPrivateTmp("CpuShares", {"120"}, 4);
  const pid_t pid = jvm->pid();
  ChildProcess other({threadsWorkload(), "60"});
  ASSERT_EQ(readyThreads(other).size(), 4u);
  const std::string out = dir.file("mid.jfr");
  ChildProcess recorder({jfrbpfBinary(), "record", "--sampler", "cpu", "-p",
                         std::to_string(pid) + "," + std::to_string(other.pid()), "-d", "60s", "--interval", "1ms",
                         "-o", out},
                        {.captureStderr = true, .extraEnv = {}});
  ASSERT_TRUE(awaitFirstChunk(dir.path())) << recorder.readAll(1s);
  jvm.reset();  // killed and reaped: its pid is free
  std::string why;
  std::unique_ptr<ChildProcess> impostor = spawnWithPid(pid, {nativeChainBinary()}, why);
  if (!impostor) GTEST_SKIP() << "cannot reuse pid " << pid << ": " << why;
  const Clock::time_point reused = Clock::now();
  const std::set<int64_t> impostorTids = impostorThreads(*impostor);

  // The recorder says the JVM is gone; the new process keeps both CPUs busy for a while under its pid.
  std::string output;
  const std::string exited = "process " + std::to_string(pid) + " exited; recording the other targets";
  for (auto until = Clock::now() + 30s; output.find(exited) == std::string::npos && Clock::now() < until;) {
    if (auto line = recorder.readLine(100ms)) output += *line + "\n";
  }
  EXPECT_NE(output.find(exited), std::string::npos) << output;
  std::this_thread::sleep_for(2s - (Clock::now() - reused));
  recorder.signal(SIGINT);
  std::optional<int> code = recorder.wait(120s);
  output += recorder.readAll(1s);
  ASSERT_EQ(code.value_or(-1), 0) << output;

  EXPECT_EQ(run({jdkTool("jfr"), "summary", out}).exitCode, 0);
  Recorded recorded = readRecording(out);
  size_t impostors = 0, others = 0;
  for (const Sample& s : recorded.samples) {
    impostors += std::any_of(s.frames.begin(), s.frames.end(), impostorFrame) ? 1 : 0;
    others += hasFrame(s, "spin_full_work") ? 1 : 0;
  }
  std::printf("[ figure ] %zu samples, %zu of the other target's spin_full_work, %zu of the process with the "
              "reused pid\n",
              recorded.samples.size(), others, impostors);
  EXPECT_GT(others, 0u) << "the recording went on with the other target";
  EXPECT_EQ(impostors, 0u) << "samples of the process that got the pid, recorded as the JVM's";
  for (int64_t tid : impostorTids) {
    EXPECT_EQ(recorded.kernelCpuNsByThread.count(tid), 0u) << "a CPU time of the new process's thread " << tid;
  }
  EXPECT_TRUE(std::any_of(recorded.notes.begin(), recorded.notes.end(),
                          [&](const std::string& note) { return note == exited; }))
      << "the file notes that the JVM exited";
}

}  // namespace
}  // namespace jfrbpf::test
