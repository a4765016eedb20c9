// jfrbpf stopped by SIGTERM or SIGINT (a service manager, a Kubernetes pod ending, Ctrl-C) at each stage of a
// recording that times a method: during the attach (then nothing is instrumented), right after the
// instrumentation, while recording, and in the final drain with a second signal or a SIGKILL on its heels.
// Each time the recording is finished and opens in the JDK's `jfr` (killed in the drain: its part file is
// recovered), the summary says why it stopped and the exit code is 0, the JVM goes on with its original code,
// nothing of jfrbpf's is left in its /tmp, and the recorder's BPF programs, maps and links are gone.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/faults/fault_support.h"
#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kTimedClass = "CpuShares";
constexpr const char* kTimedMethod = "spin";

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// `jfrbpf record -p JVM --method-timing CpuShares::spin` into `out`, running in the background.
class Recorder {
 public:
  Recorder(pid_t jvm, std::string out)
      : out_(std::move(out)),
        process_({jfrbpfBinary(), "record", "-p", std::to_string(jvm), "-d", "60s", "--interval", "1ms",
                  "--method-timing", std::string(kTimedClass) + "::" + kTimedMethod, "-o", out_},
                 {.captureStderr = true, .extraEnv = {}}) {}

  pid_t pid() const { return process_.pid(); }
  const std::string& out() const { return out_; }
  const std::string& output() const { return output_; }
  void signal(int signo) { process_.signal(signo); }
  bool running() const {
    siginfo_t info{};  // WNOWAIT: finish() still reaps it
    return waitid(P_PID, static_cast<id_t>(process_.pid()), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == 0;
  }

  // Reads what the recorder prints until a line holds `text`.
  bool awaitLine(const std::string& text, std::chrono::seconds timeout) {
    for (auto until = Clock::now() + timeout; Clock::now() < until;) {
      std::optional<std::string> line = process_.readLine(100ms);
      if (!line) continue;
      output_ += *line + "\n";
      if (line->find(text) != std::string::npos) return true;
    }
    return false;
  }
  // Its exit code once it ended (128 + signal when killed), with the rest of what it printed; -1 if it hangs.
  int finish(std::chrono::seconds timeout = 120s) {
    std::optional<int> code = process_.wait(timeout);
    output_ += process_.readAll(1s);
    return code.value_or(-1);
  }

 private:
  std::string out_;
  ChildProcess process_;
  std::string output_;
};

// After a fault: the JVM lives with its original code, and nothing of the recorder is left in its /tmp or
// the kernel.
void expectNothingLeftBehind(pid_t jvm, const BpfObjects& recorderBpf, bool wasInstrumented = true) {
  EXPECT_EQ(kill(jvm, 0), 0) << "the JVM goes on";
  EXPECT_EQ(jfrbpfFilesOf(jvm), std::vector<std::string>{}) << "jfrbpf's files in the JVM's /tmp";
  EXPECT_GT(recorderBpf.size(), 0u) << "the recorder held no BPF object when the fault came";
  BpfObjects left = stillLoaded(recorderBpf);
  EXPECT_EQ(left.size(), 0u) << "the recorder's BPF objects outlive it: " << left.describe();
  expectOriginalCode(jvm, kTimedClass, kTimedMethod, wasInstrumented);
}

// A recording stopped by a signal: exit code 0, why in the summary ("terminated" for SIGTERM, "interrupted"
// for SIGINT), a finished file that the JDK's jfr opens, and no part file.
void expectFinished(Recorder& recorder, int code, const std::vector<std::string>& reasons, const fs::path& dir) {
  EXPECT_EQ(code, 0) << recorder.output();
  EXPECT_TRUE(std::any_of(reasons.begin(), reasons.end(), [&](const std::string& reason) {
    return recorder.output().find(", " + reason + ")") != std::string::npos;
  })) << recorder.output();
  RunResult summary = run({jdkTool("jfr"), "summary", recorder.out()});
  EXPECT_EQ(summary.exitCode, 0) << summary.output;
  EXPECT_EQ(partFiles(dir), std::vector<std::string>{});
}

TEST(FaultSignals, StopSignalsAtEveryStageFinishTheFileAndRestoreTheJvm) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("faults-signals");
  auto jvm = jvmWithPrivateTmp("CpuShares", {"300"}, 4);
  const pid_t pid = jvm->pid();

  {
    SCOPED_TRACE("SIGTERM during the attach");
    // While the JVM's attach listener is held, the recorder waits for the answer to its load request, with its
    // agent copy staged in the JVM's /tmp.
    UniqueFd held = holdAttachListener(pid);
    ASSERT_TRUE(held);
    // Another jfrbpf on the machine (a `record --all`) may have loaded the agent first: the recorder then
    // reuses it, staging nothing. The attach runs while the BPF programs load, and waits for the held
    // listener: the recorder is known to be attaching, with its BPF objects, once both are there.
    const bool copies = !agentLoaded(pid);
    Recorder recorder(pid, dir.file("attach.jfr"));
    bool attaching = false;
    for (auto until = Clock::now() + 60s; !attaching && Clock::now() < until && recorder.running();) {
      std::this_thread::sleep_for(5ms);
      attaching = (!copies || holdsStagedAgent(recorder.pid())) && bpfObjectsOf(recorder.pid()).programs.size() > 0;
    }
    ASSERT_TRUE(attaching) << "the recorder never reached the attach: exit " << recorder.finish() << "\n"
                           << recorder.output();
    const BpfObjects bpf = bpfObjectsOf(recorder.pid());
    recorder.signal(SIGTERM);
    held.reset();  // the listener serves the recorder's load now
    const Clock::time_point released = Clock::now();
    const int code = recorder.finish();
    std::printf("[ figure ] during the attach: exit %.2f s after the JVM's listener was free again\n",
                secondsSince(released));
    expectFinished(recorder, code, {"terminated"}, dir.path());
    // Asked to stop before it began, the recorder leaves the JVM's code alone.
    EXPECT_NE(recorder.output().find("no method was instrumented"), std::string::npos) << recorder.output();
    expectNothingLeftBehind(pid, bpf, /*wasInstrumented=*/false);
  }
  {
    SCOPED_TRACE("SIGINT right after the instrumentation");
    Recorder recorder(pid, dir.file("instrumented.jfr"));
    ASSERT_TRUE(recorder.awaitLine("instrumented 1 class", 60s)) << recorder.output();
    const BpfObjects bpf = bpfObjectsOf(recorder.pid());
    recorder.signal(SIGINT);
    expectFinished(recorder, recorder.finish(), {"interrupted"}, dir.path());
    expectNothingLeftBehind(pid, bpf);
  }
  {
    SCOPED_TRACE("SIGTERM while recording");
    Recorder recorder(pid, dir.file("steady.jfr"));
    ASSERT_TRUE(awaitFirstChunk(dir.path())) << recorder.output();
    std::this_thread::sleep_for(1s);
    const BpfObjects bpf = bpfObjectsOf(recorder.pid());
    const Clock::time_point signalled = Clock::now();
    recorder.signal(SIGTERM);
    const int code = recorder.finish();
    std::printf("[ figure ] while recording: exit %.2f s after SIGTERM (the final drain)\n", secondsSince(signalled));
    expectFinished(recorder, code, {"terminated"}, dir.path());
    EXPECT_GT(readRecording(recorder.out()).samples.size(), 0u);
    expectNothingLeftBehind(pid, bpf);
  }
  {
    SCOPED_TRACE("SIGTERM, then SIGINT during the final drain");
    Recorder recorder(pid, dir.file("twice.jfr"));
    ASSERT_TRUE(awaitFirstChunk(dir.path())) << recorder.output();
    const BpfObjects bpf = bpfObjectsOf(recorder.pid());
    recorder.signal(SIGTERM);
    std::this_thread::sleep_for(1ms);
    recorder.signal(SIGINT);  // changes nothing: the file is being finished (unless both came before it woke)
    expectFinished(recorder, recorder.finish(), {"terminated", "interrupted"}, dir.path());
    expectNothingLeftBehind(pid, bpf);
  }
  // Killed a moment after the stop began: wherever the kill lands in the final drain, what was written stays
  // a recording, finished under its name or as a part file of whole chunks that `jfrbpf recover` finishes.
  for (int delayMs : {20, 150}) {
    SCOPED_TRACE("SIGTERM, then SIGKILL " + std::to_string(delayMs) + " ms later");
    ScratchDir killed("faults-signals-killed");
    Recorder recorder(pid, killed.file("killed.jfr"));
    ASSERT_TRUE(awaitFirstChunk(killed.path())) << recorder.output();
    const BpfObjects bpf = bpfObjectsOf(recorder.pid());
    recorder.signal(SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    recorder.signal(SIGKILL);
    const int code = recorder.finish();
    EXPECT_TRUE(code == 128 + SIGKILL || code == 0) << code << "\n" << recorder.output();
    const std::vector<std::string> parts = partFiles(killed.path());
    std::printf("[ figure ] SIGKILL %d ms after SIGTERM: %s\n", delayMs,
                parts.empty() ? "the file was already finished" : "the part file was left");
    if (!parts.empty()) {
      ASSERT_EQ(parts.size(), 1u);
      EXPECT_FALSE(fs::exists(recorder.out()));
      RunResult recovered = run({jfrbpfBinary(), "recover", parts[0]});
      EXPECT_EQ(recovered.exitCode, 0) << recovered.output;
    }
    RunResult summary = run({jdkTool("jfr"), "summary", recorder.out()});
    EXPECT_EQ(summary.exitCode, 0) << summary.output;
    EXPECT_EQ(partFiles(killed.path()), std::vector<std::string>{});
    expectNothingLeftBehind(pid, bpf);
  }
}

}  // namespace
}  // namespace jfrbpf::test
