// `jfrbpf record --all` on a host where JVMs keep starting, as pods and jobs start them all day: JVMs of JDK 17
// and 25, some with a start-up made slow on purpose (a system class loader that takes 1.5 s: HotSpot's
// attach listener answers long before the JVM can host an agent). Each is found while it starts; each that
// lives past its start-up gets Java frames in its file, and every sampling tick of the recording is a sample
// in a file or a counted loss. Quiet, and beside two CPU hogs.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <thread>

#include "tests/java_e2e/workloads.h"
#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;

constexpr int kJvms = 10;
constexpr int kSlowEvery = 3;  // every third JVM starts slowly
// After its start-up. Beside the hogs, with ten JVMs starting on 2 CPUs, agents attached up to 4.3 s after
// their JVM was found (a CI run, 2026-11-27), and a JVM that lived 5 s missed it.
constexpr const char* kLifeSeconds = "10";

// A process that keeps one CPU busy until it is killed.
std::unique_ptr<ChildProcess> cpuHog() { return std::make_unique<ChildProcess>(std::vector<std::string>{"sh", "-c", "while :; do :; done"}); }

bool hasWorkloadFrames(const Recorded& recorded) {
  for (const Sample& s : recorded.samples) {
    if (hasFrame(s, "work", "CpuShares") || hasFrame(s, "spin", "CpuShares")) return true;
  }
  return false;
}

// The file `record --all` wrote for `pid` in `dir`, or "".
std::string fileOf(const std::string& dir, pid_t pid) {
  const std::string prefix = std::to_string(pid) + "-";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().starts_with(prefix)) return entry.path();
  }
  return "";
}

uint64_t number(const std::string& grouped) {
  std::string digits;
  for (char c : grouped) {
    if (c != ',') digits += c;
  }
  return std::stoull(digits);
}

class StartingJvms : public ::testing::TestWithParam<bool> {};

TEST_P(StartingJvms, EachFoundWhileItStartsGetsJavaFramesAndEveryTickIsAccountedFor) {
  JAVA_E2E_REQUIRE(17);
  const bool busy = GetParam();
  std::vector<int> jdks = {17};
  if (!jdkHome(25).empty()) jdks.push_back(25);
  ScratchDir dir(busy ? "starting-jvms-busy" : "starting-jvms-quiet");
  std::vector<std::unique_ptr<ChildProcess>> hogs;
  if (busy) {
    hogs.push_back(cpuHog());
    hogs.push_back(cpuHog());
  }

  // One JVM found at the start: once it is being recorded, the recorder finds every new JVM as it starts.
  ChildProcess anchor(javaCommand(17, {"-Xmx64m"}, "CpuShares", {"60"}));
  std::string out = dir.file("jvms");
  ChildProcess recorder({jfrbpfBinary(), "record", "--all", "-o", out}, {.captureStderr = true});
  std::string output;
  ASSERT_TRUE(recorder.readUntil("recording JVM " + std::to_string(anchor.pid()) + " ", 90s, output)) << output;

  std::vector<std::unique_ptr<ChildProcess>> jvms;
  std::map<pid_t, std::string> kinds;
  for (int i = 0; i < kJvms; ++i) {
    const int jdk = jdks[static_cast<size_t>(i) % jdks.size()];
    std::vector<std::string> options = {"-Xmx64m"};
    const bool slow = i % kSlowEvery == kSlowEvery - 1;
    if (slow) {
      options.push_back("-Djava.system.class.loader=SlowStartLoader");
      options.push_back("-Dslowstart.ms=1500");
    }
    jvms.push_back(std::make_unique<ChildProcess>(javaCommand(jdk, options, "CpuShares", {kLifeSeconds})));
    kinds[jvms.back()->pid()] = "JDK " + std::to_string(jdk) + (slow ? ", slow start-up" : "");
    std::this_thread::sleep_for(700ms);
    while (auto line = recorder.readLine(1ms)) output += *line + "\n";  // its pipe must not fill up
  }
  std::map<pid_t, std::string> jvmOutput;
  for (auto& jvm : jvms) {
    std::optional<int> code = jvm->wait(120s);
    jvmOutput[jvm->pid()] = jvm->readAll(1s);
    ASSERT_EQ(code, 0) << kinds[jvm->pid()] << ":\n" << jvmOutput[jvm->pid()];
  }
  for (auto& jvm : jvms) {
    ASSERT_TRUE(recorder.readUntil("JVM " + std::to_string(jvm->pid()) + " exited", 90s, output)) << output;
  }
  recorder.signal(SIGINT);
  std::optional<int> code = recorder.wait(120s);
  output += recorder.readAll(2s);
  ASSERT_EQ(code, 0) << output;

  // Each JVM lived past its start-up (its workers announced themselves) and has Java frames in its file.
  for (auto& jvm : jvms) {
    const pid_t pid = jvm->pid();
    SCOPED_TRACE("JVM " + std::to_string(pid) + " (" + kinds[pid] + ")");
    ASSERT_NE(jvmOutput[pid].find("ready share-10-0"), std::string::npos) << jvmOutput[pid];
    EXPECT_EQ(output.find("process " + std::to_string(pid) + ": Java frames unavailable"), std::string::npos) << output;
    const std::string file = fileOf(out, pid);
    ASSERT_FALSE(file.empty()) << output;
    Recorded recorded = readRecording(file);
    EXPECT_GT(recorded.samples.size(), 20u) << file;
    EXPECT_TRUE(hasWorkloadFrames(recorded)) << file << "\n" << output;
  }

  // samples + lost = sampling ticks, over every JVM of the recording (the host's other JVMs included).
  std::smatch total;
  const std::regex totalLine(R"(total +([0-9,]+) samples .*, ([0-9,]+) lost of ([0-9,]+) sampling ticks)");
  ASSERT_TRUE(std::regex_search(output, total, totalLine)) << output;
  EXPECT_EQ(number(total[1]) + number(total[2]), number(total[3])) << output;
}

INSTANTIATE_TEST_SUITE_P(Host, StartingJvms, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Busy" : "Quiet"; });

}  // namespace
}  // namespace jfrbpf::test
