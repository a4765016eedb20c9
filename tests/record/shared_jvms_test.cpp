// Several jfrbpf recorders on one host, recording the same JVMs at once, as happens where a team runs the
// host recorder (the DaemonSet's `record --all`) and an engineer runs `record -p` or launch mode on the same
// node: every recorder gets Java frames for every JVM it records, whoever attached first; what changes a JVM
// (method timing) belongs to the first recording that asks, the others are told so and record without it;
// and no recorder's start or end disturbs another's.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <thread>

#include "tests/record/bpf_test_support.h"
#include "tests/record/record_test_support.h"
#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;

std::string java() { return std::string(kJdkHome) + "/bin/java"; }
std::string demoClasses() { return std::string(kBinaryDir) + "/demo-app/classes"; }

std::vector<std::string> demoCommand(int seconds) {
  return {java(), "-Xmx128m", "-Djava.library.path=" + std::string(kBinaryDir) + "/demo-app", "-cp", demoClasses(),
          "demo.DemoApp", std::to_string(seconds)};
}

// The demo's pid, from the line it prints once its threads run.
pid_t demoPid(const std::string& output) {
  const std::string marker = "DemoApp running, pid ";
  size_t at = output.find(marker);
  return at == std::string::npos ? 0 : std::stoi(output.substr(at + marker.size()));
}

// The share of the matrix worker's samples whose stack has its Java method: a recorder without the JVM's
// frames has none (the loss this test guards against was total, 0 %).
double matrixShare(const std::string& file, size_t& samples) {
  Recorded recorded = readRecording(file);
  size_t withMethod = 0;
  samples = 0;
  for (const Sample& s : recorded.samples) {
    if (s.javaThreadName != "matrix-worker") continue;
    ++samples;
    withMethod += hasFrame(s, "multiplyMatrices", "demo/DemoApp") ? 1 : 0;
  }
  return samples == 0 ? 0 : static_cast<double>(withMethod) / static_cast<double>(samples);
}

std::string printedTimings(const std::string& file) {
  return run({jdkTool("jfr"), "print", "--events", "jdk.MethodTiming", file}).output;
}

TEST(SharedJvms, AHostRecorderALaunchAndTwoPidRecordersAllGetJavaFrames) {
  JFRBPF_REQUIRE_BPF();
  if (access(demoClasses().c_str(), R_OK) != 0) GTEST_SKIP() << "demo app not built";
  ScratchDir dir("shared-jvms");

  // A JVM the host recorder serves before anyone else comes.
  ChildProcess attached(demoCommand(60), {.captureStderr = true});
  std::string attachedOutput;
  ASSERT_TRUE(attached.readUntil("DemoApp running", 90s, attachedOutput)) << attachedOutput;

  const std::string hostDir = dir.file("host");
  ChildProcess host({jfrbpfBinary(), "record", "--all", "-o", hostDir}, {.captureStderr = true});
  std::string hostOutput;
  ASSERT_TRUE(host.readUntil("recording JVM " + std::to_string(attached.pid()) + " ", 90s, hostOutput)) << hostOutput;

  // A JVM launched by a second recorder, which times a method in it: the host recorder finds it while its
  // agent holds it at VMInit for the launching recorder.
  std::vector<std::string> launch = {jfrbpfBinary(), "record", "-d", "8s", "-o", dir.file("launch.jfr"),
                                     "--method-timing", "demo.DemoApp::multiplyMatrices", "--"};
  for (const std::string& arg : demoCommand(30)) launch.push_back(arg);
  ChildProcess launcher(launch, {.captureStderr = true});
  std::string launchOutput;
  ASSERT_TRUE(launcher.readUntil("DemoApp running", 90s, launchOutput)) << launchOutput;
  const pid_t launched = demoPid(launchOutput);
  ASSERT_GT(launched, 0) << launchOutput;
  ASSERT_TRUE(host.readUntil("recording JVM " + std::to_string(launched) + " ", 90s, hostOutput)) << hostOutput;

  // A third recorder times a method of the JVM the host serves (the host did not ask for timing, so this one
  // gets it); a fourth asks the launched JVM, whose timing the launching recorder holds, and goes without.
  ChildProcess pidTimer({jfrbpfBinary(), "record", "-p", std::to_string(attached.pid()), "-d", "5s", "-o",
                         dir.file("pid-timing.jfr"), "--method-timing", "demo.DemoApp::multiplyMatrices"},
                        {.captureStderr = true});
  ChildProcess pidRefused({jfrbpfBinary(), "record", "-p", std::to_string(launched), "-d", "4s", "-o",
                           dir.file("pid-refused.jfr"), "--method-timing", "demo.DemoApp::updateInventory"},
                          {.captureStderr = true});

  auto pidTimerCode = pidTimer.wait(90s);
  std::string pidTimerOutput = pidTimer.readAll(1s);
  auto pidRefusedCode = pidRefused.wait(90s);
  std::string pidRefusedOutput = pidRefused.readAll(1s);
  auto launchCode = launcher.wait(90s);
  launchOutput += launcher.readAll(1s);
  // The host recorder outlived the others' starts and ends; it ends last, by Ctrl-C.
  std::this_thread::sleep_for(1s);
  host.signal(SIGINT);
  auto hostCode = host.wait(120s);
  hostOutput += host.readAll(1s);

  ASSERT_TRUE(pidTimerCode.has_value() && pidRefusedCode.has_value() && launchCode.has_value() && hostCode.has_value());
  EXPECT_EQ(*pidTimerCode, 0) << pidTimerOutput;
  EXPECT_EQ(*pidRefusedCode, 0) << pidRefusedOutput;
  EXPECT_EQ(*launchCode, 0) << launchOutput;
  EXPECT_EQ(*hostCode, 0) << hostOutput;
  EXPECT_NE(pidRefusedOutput.find("another jfrbpf recording of this JVM instruments its methods"), std::string::npos)
      << pidRefusedOutput;

  // Both JVMs stand still while the files are read.
  PausedProcess pausedAttached(attached.pid()), pausedLaunched(launched);
  std::map<std::string, std::string> files = {{"launch", dir.file("launch.jfr")},
                                              {"pid-timing", dir.file("pid-timing.jfr")},
                                              {"pid-refused", dir.file("pid-refused.jfr")}};
  for (const auto& entry : std::filesystem::directory_iterator(hostDir)) {
    const std::string name = entry.path().filename();
    const pid_t pid = std::stoi(name.substr(0, name.find('-')));
    if (pid == attached.pid()) files["host's file of the attached JVM"] = entry.path();
    if (pid == launched) files["host's file of the launched JVM"] = entry.path();
  }
  ASSERT_EQ(files.size(), 5u) << hostOutput;
  for (const auto& [role, file] : files) {
    SCOPED_TRACE(role + ": " + file);
    EXPECT_EQ(run({jdkTool("jfr"), "summary", file}).exitCode, 0);
    size_t samples = 0;
    const double share = matrixShare(file, samples);
    // Two demo JVMs with four busy threads each share the 2 CPUs: the matrix worker runs about a quarter of the
    // time, 81-300 samples per file measured. 95 % is the bar users set (98-100 % measured: a sample between two
    // calls of the method has only the worker's loop).
    EXPECT_GT(samples, 20u);
    EXPECT_GE(share, 0.95) << samples << " samples of the matrix worker";
    std::cout << role << ": " << samples << " samples of the matrix worker, " << share * 100 << " % with its method\n";
  }

  // Each timing recording timed its own method, and only the holder of a JVM's timing has any.
  EXPECT_NE(printedTimings(dir.file("launch.jfr")).find("demo.DemoApp.multiplyMatrices()"), std::string::npos);
  EXPECT_NE(printedTimings(dir.file("pid-timing.jfr")).find("demo.DemoApp.multiplyMatrices()"), std::string::npos);
  EXPECT_EQ(printedTimings(dir.file("pid-refused.jfr")).find("updateInventory"), std::string::npos);
  for (const std::string& host : {files["host's file of the attached JVM"], files["host's file of the launched JVM"]}) {
    EXPECT_EQ(printedTimings(host).find("method = "), std::string::npos) << host;
  }
}

}  // namespace
}  // namespace jfrbpf::test
