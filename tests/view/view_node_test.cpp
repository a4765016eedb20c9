// The converters' output read by independent tools: the pprof file by the pprof-format npm package, the
// HTML flame graph by headless Chromium (driven through playwright-core). Both packages are installed with
// `npm ci` from tests/view/node's lock file into the build tree; the tests skip, saying why, without npm,
// network access to the registry, or Chromium.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "formats/convert/convert.h"
#include "test_config.h"
#include "tests/support/child_process.h"
#include "tests/view/allocation_recording.h"
#include "tests/view/off_cpu_recording.h"
#include "tests/view/synthetic_recording.h"
#include "tests/view/view_test_support.h"

namespace jfrbpf::test {
namespace {

namespace fs = std::filesystem;
using F = MixedRecordingFacts;

bool onPath(const std::string& program) { return run({"sh", "-c", "command -v " + program}).exitCode == 0; }

// The node_modules directory, installed once per build tree; on failure, `reason` says why.
std::string nodeDirectory(std::string& reason) {
  if (!onPath("node") || !onPath("npm")) {
    reason = "node and npm are not installed (Debian: nodejs, npm)";
    return "";
  }
  std::string source = std::string(kSourceDir) + "/tests/view/node";
  std::string dir = std::string(kBinaryDir) + "/tests/view/node";
  fs::create_directories(dir);
  int lock = ::open((dir + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) {
    reason = "cannot lock " + dir;
    if (lock >= 0) ::close(lock);
    return "";
  }
  for (const char* file : {"package.json", "package-lock.json", "check_pprof.mjs", "check_flamegraph.mjs"}) {
    fs::copy_file(source + "/" + file, dir + "/" + file, fs::copy_options::overwrite_existing);
  }
  std::string installedLock = dir + "/node_modules/.installed-package-lock.json";
  if (readFile(installedLock) != readFile(dir + "/package-lock.json")) {
    RunResult npm =
        run({"sh", "-c", "cd '" + dir + "' && npm ci --no-audit --no-fund 2>&1"}, std::chrono::seconds(600));
    if (npm.exitCode != 0) {
      reason = "npm ci failed (no access to the npm registry?): " + npm.output.substr(0, 400);
      ::close(lock);
      return "";
    }
    fs::copy_file(dir + "/package-lock.json", installedLock, fs::copy_options::overwrite_existing);
  }
  ::close(lock);
  return dir;
}

class ViewNode : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    node_ = nodeDirectory(reason);
    if (node_.empty()) GTEST_SKIP() << reason;
    recording_ = dir_.file("mixed.jfr");
    writeMixedRecording(recording_);
  }

  // Lines "<key> <rest>" of a script's output.
  static std::multimap<std::string, std::string> facts(const std::string& output) {
    std::multimap<std::string, std::string> out;
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
      size_t space = line.find(' ');
      out.emplace(line.substr(0, space), space == std::string::npos ? "" : line.substr(space + 1));
    }
    return out;
  }
  static bool has(const std::multimap<std::string, std::string>& facts, const std::string& key,
                  const std::string& value) {
    auto [begin, end] = facts.equal_range(key);
    for (auto it = begin; it != end; ++it) {
      if (it->second == value) return true;
    }
    return false;
  }
  static bool hasPrefix(const std::multimap<std::string, std::string>& facts, const std::string& key,
                        const std::string& prefix) {
    auto [begin, end] = facts.equal_range(key);
    for (auto it = begin; it != end; ++it) {
      if (it->second.starts_with(prefix)) return true;
    }
    return false;
  }
  static std::string first(const std::multimap<std::string, std::string>& facts, const std::string& key) {
    auto it = facts.find(key);
    return it == facts.end() ? "<no " + key + ">" : it->second;
  }

  // check_flamegraph.mjs on `html` in headless Chromium with `args` (SHOT SEARCH ZOOM_NAME THREAD_PREFIX
  // DRAG_FROM DRAG_TO); its output, after failing the test if it did not run to the end.
  std::string browse(const std::string& html, const std::vector<std::string>& args) {
    ChildOptions options;
    options.captureStderr = true;
    options.extraEnv = {"JFRBPF_CHROMIUM=" + std::string(kChromium),
                        "JFRBPF_CHROMIUM_PROFILE=" + dir_.file("chromium-profile")};
    std::vector<std::string> command = {"node", node_ + "/check_flamegraph.mjs", html};
    command.insert(command.end(), args.begin(), args.end());
    ChildProcess browser(command, options);
    std::string output = browser.readAll(std::chrono::seconds(120));
    EXPECT_EQ(browser.wait(std::chrono::seconds(10)), 0) << output;
    return output;
  }
  static constexpr const char* kChromium = "/usr/bin/chromium";

  // check_pprof.mjs's output on `path`, after failing the test if it could not read it or found an error in it.
  std::string checkPprof(const std::string& path) {
    RunResult r = run({"node", node_ + "/check_pprof.mjs", path});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(facts(r.output).count("error"), 0u) << r.output;
    return r.output;
  }

  // The allocation recording (allocation_recording.h) converted to `format` as `convert --alloc` does, at `name`.
  std::string convertAllocations(convert::Format format, const std::string& name) {
    std::string recording = dir_.file("alloc.jfr");
    writeAllocationRecording(recording);
    std::string out = dir_.file(name);
    convert::ConvertOptions options;
    options.time = convert::TimeKind::kAlloc;
    convert::convertRecording(recording, format, out, options);
    return out;
  }

  TempDir dir_;
  std::string node_;
  std::string recording_;
};

TEST_F(ViewNode, PprofDecodedByPprofFormat) {
  std::string out = dir_.file("mixed.pb.gz");
  convert::convertRecording(recording_, convert::Format::kPprof, out);
  std::string output = checkPprof(out);
  auto f = facts(output);
  EXPECT_TRUE(has(f, "sample_type", "samples count")) << output;
  EXPECT_TRUE(has(f, "sample_type", "cpu nanoseconds")) << output;
  EXPECT_EQ(first(f, "default"), "cpu");
  EXPECT_EQ(first(f, "period"), std::to_string(F::kPeriodNanos));
  EXPECT_TRUE(has(f, "total", "0 " + std::to_string(F::kTotalSamples))) << output;
  EXPECT_TRUE(has(f, "total", "1 " + std::to_string(F::kTotalSamples * F::kPeriodNanos))) << output;
  EXPECT_TRUE(has(f, "thread", "65 main")) << output;
  EXPECT_TRUE(has(f, "thread", "30 worker-1")) << output;
  EXPECT_TRUE(has(f, "thread", "10 gc-thread")) << output;
  EXPECT_TRUE(has(f, "leaf", "60 Work.hot(int)")) << output;
  EXPECT_TRUE(has(f, "leaf", "30 copy_user_enhanced_fast_string (kernel)")) << output;
  EXPECT_TRUE(has(f, "file", "java.io.FileInputStream")) << output;
  EXPECT_TRUE(has(f, "mapping", "libc.so.6")) << output;
  EXPECT_TRUE(has(f, "mapping", "libjvm.so")) << output;
  EXPECT_FALSE(has(f, "mapping", "Work")) << "Java code has no native mapping";
}

TEST_F(ViewNode, FlameGraphInChromium) {
  if (!fs::exists(kChromium)) GTEST_SKIP() << "Chromium is not installed (Debian package chromium)";
  std::string html = dir_.file("mixed.html");
  convert::convertRecording(recording_, convert::Format::kHtml, html);
  std::string shot = std::string(kBinaryDir) + "/tests/view/flamegraph.png";
  fs::remove(shot);
  std::string output = browse(html, {shot, "memcpy", "Work.compute(int)", "worker-1", "0", "0.3"});
  auto f = facts(output);
  EXPECT_EQ(f.count("error"), 0u) << output;

  // Loaded: the header counts every sample, every stack is drawn with its frames' names.
  EXPECT_NE(first(f, "info").find("105 samples"), std::string::npos) << output;
  for (const char* name :
       {"all", "Work.hot(int)", "Work.compute(int)", "copy_user_enhanced_fast_string (kernel)",
        "xfs_file_read_iter (xfs)", "read (libc.so.6)", "memcpy (libc.so.6)", "[stack trace unavailable]"}) {
    EXPECT_TRUE(has(f, "box", std::string("load ") + name)) << name << "\n" << output;
  }
  EXPECT_NE(first(f, "root").find("Samples: 105 (100.00% of shown)"), std::string::npos) << output;

  // Search: memcpy's 10 of 105 samples.
  EXPECT_EQ(first(f, "matched"), "Matched: 9.52%") << output;
  EXPECT_EQ(first(f, "highlight"), "224,64,224") << output;  // painted magenta

  // Zoom: the clicked frame takes the whole width; other threads' frames are gone.
  std::istringstream zoom(first(f, "zoom"));
  int boxWidth = 0, graphWidth = 0;
  zoom >> boxWidth >> graphWidth;
  EXPECT_GT(graphWidth, 1000);
  EXPECT_NEAR(boxWidth, graphWidth, 2) << output;
  EXPECT_TRUE(has(f, "box", "zoom Work.hot(int)")) << output;
  EXPECT_FALSE(has(f, "box", "zoom memcpy (libc.so.6)")) << output;

  // Thread filter: only worker-1's 30 samples.
  EXPECT_TRUE(has(f, "box", "thread read (libc.so.6)")) << output;
  EXPECT_FALSE(has(f, "box", "thread Work.hot(int)")) << output;
  EXPECT_TRUE(hasPrefix(f, "root", "thread all | Samples: 30 (100.00% of shown)")) << output;

  // Time range: the first 30% of the recording holds main's and gc-thread's samples, not worker-1's.
  EXPECT_NE(first(f, "range"), "whole recording") << output;
  EXPECT_TRUE(has(f, "box", "range Work.hot(int)")) << output;
  EXPECT_FALSE(has(f, "box", "range read (libc.so.6)")) << output;

  // The screenshot: a PNG of the page as rendered.
  std::string png = readFile(shot);
  ASSERT_GT(png.size(), 10'000u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  auto be32 = [&](size_t at) {
    return (static_cast<uint32_t>(static_cast<uint8_t>(png[at])) << 24) |
           (static_cast<uint32_t>(static_cast<uint8_t>(png[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<uint8_t>(png[at + 2])) << 8) | static_cast<uint8_t>(png[at + 3]);
  };
  EXPECT_EQ(be32(16), 1200u);  // IHDR width: the viewport
  EXPECT_GE(be32(20), 300u);
}

// An off-CPU flame graph is weighted by time: widths, the header, tooltips and the thread list say seconds.
TEST_F(ViewNode, OffCpuFlameGraphInChromium) {
  if (!fs::exists(kChromium)) GTEST_SKIP() << "Chromium is not installed (Debian package chromium)";
  std::string recording = dir_.file("offcpu.jfr");
  writeOffCpuRecording(recording);
  std::string html = dir_.file("offcpu.html");
  convert::ConvertOptions options;
  options.time = convert::TimeKind::kOffCpu;
  convert::convertRecording(recording, convert::Format::kHtml, html, options);
  std::string output =
      browse(html, {dir_.file("offcpu.png"), "futex", "java.lang.Object.wait(long)", "worker-1", "0", "0.3"});
  auto f = facts(output);
  EXPECT_EQ(f.count("error"), 0u) << output;
  EXPECT_NE(first(f, "info").find("11 samples \u00b7 3.10 s of off-CPU time"), std::string::npos) << output;
  EXPECT_TRUE(has(f, "box", "load java.lang.Thread.sleep(long)")) << output;
  EXPECT_NE(first(f, "root").find("Off-CPU time: 3.10 s (100.00% of shown)"), std::string::npos) << output;
  // futex frames: worker-1's 900 ms and gc-thread's 100 ms of 3.1 s, by time, not by samples (4 of 11).
  EXPECT_EQ(first(f, "matched"), "Matched: 32.26%") << output;
  EXPECT_TRUE(hasPrefix(f, "root", "thread all | Off-CPU time: 1.00 s (100.00% of shown)")) << output;
}

// An allocation profile read by pprof's own conventions: alloc_objects/count and alloc_space/bytes, the
// classes as the leaves, no mapping for them (they are no code).
TEST_F(ViewNode, AllocationPprofDecodedByPprofFormat) {
  using A = AllocationRecordingFacts;
  std::string output = checkPprof(convertAllocations(convert::Format::kPprof, "alloc.pb.gz"));
  auto f = facts(output);
  EXPECT_TRUE(has(f, "sample_type", "alloc_objects count")) << output;
  EXPECT_TRUE(has(f, "sample_type", "alloc_space bytes")) << output;
  EXPECT_EQ(first(f, "default"), "alloc_space");
  EXPECT_TRUE(has(f, "total", "0 " + std::to_string(A::kSamples))) << output;
  EXPECT_TRUE(has(f, "total", "1 " + std::to_string(A::kBytes))) << output;
  EXPECT_TRUE(has(f, "thread", "5 main")) << output;  // objects per thread
  EXPECT_TRUE(has(f, "leaf", "4 byte[]")) << output;
  EXPECT_TRUE(has(f, "leaf", "1 int[][]")) << output;
  EXPECT_EQ(f.count("mapping"), 0u) << output;
}

// An allocation flame graph is weighted by bytes: widths, the header, tooltips and the thread list say bytes,
// and the classes on top of the stacks are drawn in their own colour.
TEST_F(ViewNode, AllocationFlameGraphInChromium) {
  if (!fs::exists(kChromium)) GTEST_SKIP() << "Chromium is not installed (Debian package chromium)";
  using A = AllocationRecordingFacts;
  std::string html = convertAllocations(convert::Format::kHtml, "alloc.html");
  std::string output = browse(html, {dir_.file("alloc.png"), "byte", "Work.grow()", "worker-1", "0", "1"});
  auto f = facts(output);
  EXPECT_EQ(f.count("error"), 0u) << output;
  EXPECT_NE(first(f, "info").find(std::to_string(A::kSamples) + " samples \u00b7 5.0 MB of allocated memory"),
            std::string::npos)
      << output;
  EXPECT_TRUE(has(f, "box", "load java.lang.Object[]")) << output;
  EXPECT_NE(first(f, "root").find("Allocated memory: 5.0 MB (100.00% of shown)"), std::string::npos) << output;
  // byte[]: main's 3,000,000 and worker-1's 500,000 bytes of 5,000,000, by bytes, not by samples (4 of 11).
  EXPECT_EQ(first(f, "matched"), "Matched: 70.00%") << output;
  EXPECT_TRUE(hasPrefix(f, "root", "thread all | Allocated memory: 1.6 MB (100.00% of shown)")) << output;
}

}  // namespace
}  // namespace jfrbpf::test
