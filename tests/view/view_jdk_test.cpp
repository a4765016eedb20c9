// Views and converters on recordings written by the JDK itself: JDK 17 (jdk.ExecutionSample) and, when
// installed, JDK 25 (jdk.CPUTimeSample, jdk.MethodTiming, jdk.MethodTrace), checked against the JDK's own
// `jfr summary` counts and JDK 25's `jfr view` tables for the same file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "formats/convert/convert.h"
#include "formats/jfr/reader/recording.h"
#include "test_config.h"
#include "tests/support/child_process.h"
#include "tests/view/view_test_support.h"
#include "userspace/view/recording_digest.h"
#include "userspace/view/views.h"

namespace jfrbpf::test {
namespace {

constexpr const char* kRunMillis = "2500";

// Events of `type` per `jfr summary`.
uint64_t summaryCount(const std::string& jdk, const std::string& file, const std::string& type) {
  RunResult r = run({jdk + "/bin/jfr", "summary", file});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  std::istringstream lines(r.output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name;
    uint64_t count = 0;
    if (words >> name >> count && name == type) return count;
  }
  return 0;
}

std::vector<std::vector<std::string>> sorted(std::vector<std::vector<std::string>> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Recordings are made once per build tree and shared by the tests (each runs in its own process): made
// under a lock, into a temporary name, then renamed, and remade when the workload's source is newer.
class SharedRecordings {
 public:
  SharedRecordings() : dir_(std::string(kBinaryDir) + "/tests/view/jdk-recordings") {
    std::filesystem::create_directories(dir_);
    lock_ = ::open((dir_ + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_ >= 0) ::flock(lock_, LOCK_EX);
  }
  ~SharedRecordings() {
    if (lock_ >= 0) ::close(lock_);  // releases the lock
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  int lock_ = -1;
};

std::string workloadSource() { return std::string(kSourceDir) + "/tests/view/java/ViewWorkload.java"; }

bool fresh(const std::string& file) {
  std::error_code ec;
  auto made = std::filesystem::last_write_time(file, ec);
  return !ec && made > std::filesystem::last_write_time(workloadSource());
}

class ViewJdk : public ::testing::Test {
 protected:
  // Runs the workload under `jdk` with -XX:StartFlightRecording=filename=<file>,<settings>; "" on failure.
  static std::string record(const std::string& jdk, const std::string& name, const std::string& settings) {
    SharedRecordings shared;
    std::string file = shared.dir() + "/" + name;
    if (fresh(file)) return file;
    std::string classes = shared.dir() + "/classes";
    if (!fresh(classes + "/ViewWorkload.class")) {
      RunResult r = run({std::string(kJdkHome) + "/bin/javac", "-d", classes, workloadSource()});
      EXPECT_EQ(r.exitCode, 0) << r.output;
    }
    std::string partial = file + ".partial.jfr";
    RunResult r = run({jdk + "/bin/java", "-cp", classes,
                       "-XX:StartFlightRecording=filename=" + partial + "," + settings, "ViewWorkload", kRunMillis},
                      std::chrono::seconds(120));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    if (r.exitCode != 0) return "";
    std::filesystem::rename(partial, file);
    return file;
  }

  void requireJdk17() {
    if (!std::filesystem::exists(std::string(kJdkHome) + "/bin/javac")) GTEST_SKIP() << "no javac in " << kJdkHome;
  }
  void requireJdk25() {
    requireJdk17();
    if (std::string(kJdk25Home).empty()) GTEST_SKIP() << "no JDK 25 installed (JFRBPF_JDK25_HOME)";
  }
  static std::string jdk25Recording() {
    return record(kJdk25Home, "jdk25.jfr",
                  "settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=5ms,"
                  "jdk.MethodTiming#filter=ViewWorkload::timed;ViewWorkload::light,"
                  "jdk.MethodTrace#filter=ViewWorkload::traced");
  }
  static view::ViewOptions wide() {
    view::ViewOptions options;
    options.width = 250;
    return options;
  }
};

TEST_F(ViewJdk, Jdk17ExecutionSamples) {
  requireJdk17();
  std::string file = record(kJdkHome, "jdk17.jfr", "settings=profile");
  ASSERT_FALSE(file.empty());
  view::RecordingDigest digest = view::digestRecording(file, {});
  EXPECT_FALSE(digest.writtenByJfrbpf);
  EXPECT_EQ(digest.profile.eventName, "jdk.ExecutionSample");
  uint64_t expected = summaryCount(kJdkHome, file, "jdk.ExecutionSample");
  ASSERT_GT(expected, 20u) << "the workload ran too briefly to test anything";
  EXPECT_EQ(digest.profile.totalSamples, expected);
  // jdk.ExecutionSample has no samplingPeriod: each sample stands for the configured period.
  EXPECT_TRUE(digest.profile.cpuTimeKnown);
  int64_t perSample = digest.profile.totalCpuNanos / static_cast<int64_t>(digest.profile.totalSamples);
  EXPECT_TRUE(perSample == 10'000'000 || perSample == 20'000'000) << perSample;

  auto rows = tableRows(view::hotMethodsView(digest, wide()), "Hot Methods");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], "ViewWorkload.heavy(int)");
  EXPECT_EQ(rows[1][0], "ViewWorkload.light(int)");
  auto threads = tableRows(view::threadsView(digest, wide()), "CPU Time by Thread");
  ASSERT_FALSE(threads.empty());
  EXPECT_EQ(threads[0][0], "view-worker");

  std::ostringstream collapsed;
  convert::writeCollapsed(digest.profile, {}, collapsed);
  uint64_t total = 0;
  parseCollapsed(collapsed.str(), &total);
  EXPECT_EQ(total, expected);
}

TEST_F(ViewJdk, Jdk25CpuTimeHotMethodsMatchJfrView) {
  requireJdk25();
  std::string file = jdk25Recording();
  ASSERT_FALSE(file.empty());
  view::RecordingDigest digest = view::digestRecording(file, {});
  EXPECT_EQ(digest.profile.eventName, "jdk.CPUTimeSample");
  uint64_t expected = summaryCount(kJdk25Home, file, "jdk.CPUTimeSample");
  ASSERT_GT(expected, 20u);
  EXPECT_EQ(digest.profile.totalSamples, expected);
  EXPECT_EQ(digest.sampleEvents.at("jdk.ExecutionSample"), summaryCount(kJdk25Home, file, "jdk.ExecutionSample"));

  RunResult jdk = run({std::string(kJdk25Home) + "/bin/jfr", "view", "--width", "250", "cpu-time-hot-methods", file});
  ASSERT_EQ(jdk.exitCode, 0) << jdk.output;
  const std::string title = "Java Methods that Execute the Most from CPU Time Sampler";
  auto theirs = tableRows(jdk.output, title);
  auto ours = tableRows(view::cpuTimeHotMethodsView(digest, wide()), title);
  ASSERT_FALSE(theirs.empty()) << jdk.output;
  EXPECT_EQ(sorted(ours), sorted(theirs)) << jdk.output;
  EXPECT_EQ(ours[0][0], "ViewWorkload.heavy(int)");

  // Lost samples: what JDK 25's cpu-time-statistics sums.
  RunResult stats = run({std::string(kJdk25Home) + "/bin/jfr", "view", "cpu-time-statistics", file});
  size_t at = stats.output.find("Lost Samples:");
  ASSERT_NE(at, std::string::npos) << stats.output;
  std::string lost = stats.output.substr(at + 13);
  lost = lost.substr(lost.find_first_not_of(' '));
  lost = lost.substr(0, lost.find('\n'));
  if (lost == "N/A") lost = "0";
  lost.erase(std::remove(lost.begin(), lost.end(), ','), lost.end());
  EXPECT_EQ(digest.totalLost(), std::stoll(lost)) << stats.output;
}

TEST_F(ViewJdk, Jdk25HotMethodsOfExecutionSamplesMatchJfrView) {
  requireJdk25();
  std::string file = jdk25Recording();
  ASSERT_FALSE(file.empty());
  view::DigestOptions options;
  options.samples.eventName = "jdk.ExecutionSample";
  view::RecordingDigest digest = view::digestRecording(file, options);
  RunResult jdk = run({std::string(kJdk25Home) + "/bin/jfr", "view", "--width", "250", "hot-methods", file});
  ASSERT_EQ(jdk.exitCode, 0) << jdk.output;
  auto theirs = tableRows(jdk.output, "Java Methods that Execute the Most");
  auto ours = tableRows(view::hotMethodsView(digest, wide()), "Hot Methods");
  ASSERT_FALSE(theirs.empty()) << jdk.output;
  // Theirs: method, samples, percent by top frame = our method, self, self %.
  std::vector<std::vector<std::string>> selfRows;
  for (const auto& row : ours) {
    if (row[1] != "0") selfRows.push_back({row[0], row[1], row[2]});
  }
  EXPECT_EQ(sorted(selfRows), sorted(theirs)) << jdk.output;
}

TEST_F(ViewJdk, Jdk25MethodTimingMatchesJfrView) {
  requireJdk25();
  std::string file = jdk25Recording();
  ASSERT_FALSE(file.empty());
  view::RecordingDigest digest = view::digestRecording(file, {});
  RunResult jdk = run({std::string(kJdk25Home) + "/bin/jfr", "view", "--width", "250", "method-timing", file});
  ASSERT_EQ(jdk.exitCode, 0) << jdk.output;
  auto theirs = tableRows(jdk.output, "Method Timing");
  auto ours = tableRows(view::methodTimingView(digest, wide()), "Method Timing");
  ASSERT_EQ(theirs.size(), 2u) << jdk.output;
  EXPECT_EQ(ours, theirs) << jdk.output;
  EXPECT_EQ(ours[1][0], "ViewWorkload.timed(int)");
}

TEST_F(ViewJdk, Jdk25MethodTracesCountEveryTrace) {
  requireJdk25();
  std::string file = jdk25Recording();
  ASSERT_FALSE(file.empty());
  view::RecordingDigest digest = view::digestRecording(file, {});
  uint64_t expected = summaryCount(kJdk25Home, file, "jdk.MethodTrace");
  EXPECT_EQ(expected, 10u);
  EXPECT_EQ(digest.traces.size(), expected);
  std::string text = view::methodTracesView(digest, wide());
  auto rows = tableRows(text, "Traced Methods");
  ASSERT_EQ(rows.size(), 1u) << text;
  EXPECT_EQ(rows[0][0], "ViewWorkload.traced()");
  EXPECT_EQ(rows[0][1], "10");
  EXPECT_NE(text.find("    at ViewWorkload.main(String[]) line: "), std::string::npos) << text;
}

TEST_F(ViewJdk, Jdk25ConversionsKeepEverySample) {
  requireJdk25();
  std::string file = jdk25Recording();
  ASSERT_FALSE(file.empty());
  uint64_t expected = summaryCount(kJdk25Home, file, "jdk.CPUTimeSample");
  TempDir dir;
  std::string out = dir.file("jdk25.collapsed");
  convert::ConvertResult result = convert::convertRecording(file, convert::Format::kCollapsed, out);
  EXPECT_EQ(result.samples, expected);
  uint64_t total = 0;
  auto stacks = parseCollapsed(readFile(out), &total);
  EXPECT_EQ(total, expected);
  uint64_t heavy = 0;
  for (const auto& [stack, count] : stacks) {
    if (!stack.ends_with(";ViewWorkload.heavy(int)")) continue;
    heavy += count;
    EXPECT_TRUE(stack.starts_with("java.lang.Thread.run();")) << stack;  // root first
  }
  EXPECT_GT(heavy, total / 2);
}

}  // namespace
}  // namespace jfrbpf::test
