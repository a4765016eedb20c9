// Views and converters on a recording written by jfrbpf's own JFR writer, whose contents are known exactly
// (see synthetic_recording.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "formats/convert/convert.h"
#include "formats/jfr/reader/recording.h"
#include "formats/jfr/writer/recording.h"
#include "test_config.h"
#include "tests/support/child_process.h"
#include "tests/view/recording_suite.h"
#include "tests/view/synthetic_recording.h"
#include "tests/view/view_test_support.h"
#include "userspace/view/recording_digest.h"
#include "userspace/view/text_format.h"
#include "userspace/view/views.h"

namespace jfrbpf::test {
namespace {

using F = MixedRecordingFacts;
using convert::FrameKind;

struct MixedWriter {
  static constexpr const char* kFileName = "mixed.jfr";
  static void write(const std::string& path) { writeMixedRecording(path); }
};

class ViewMixed : public RecordingSuite<MixedWriter> {
 protected:
  static view::ViewOptions wide() {
    view::ViewOptions options;
    options.width = 160;
    return options;
  }
  static std::string cell(const std::vector<std::vector<std::string>>& rows, const std::string& first, size_t column) {
    for (const auto& row : rows) {
      if (!row.empty() && row[0] == first && column < row.size()) return row[column];
    }
    return "<no row " + first + ">";
  }
};

TEST_F(ViewMixed, ProfileCountsEverySampleAcrossChunks) {
  auto recording = jfr::reader::Recording::open(path_);
  ASSERT_EQ(recording.chunks().size(), 2u);
  convert::Profile profile = convert::loadProfile(recording);
  EXPECT_EQ(profile.eventName, "jdk.CPUTimeSample");
  EXPECT_EQ(profile.totalSamples, F::kTotalSamples);
  EXPECT_EQ(profile.failedSamples, F::kFailedSamples);
  EXPECT_EQ(profile.biasedSamples, 6u);
  EXPECT_TRUE(profile.cpuTimeKnown);
  EXPECT_EQ(profile.totalCpuNanos, static_cast<int64_t>(F::kTotalSamples) * F::kPeriodNanos);
  EXPECT_EQ(profile.threads.size(), 3u);
  // Constants repeated in the second chunk map to the same methods.
  size_t mains = 0;
  for (const auto& m : profile.methods) mains += m.name == "Work.main(String[])";
  EXPECT_EQ(mains, 1u);
  uint64_t sum = 0;
  for (const auto& g : profile.groups) {
    uint64_t timed = 0;
    for (const auto& t : g.times) timed += t.samples;
    EXPECT_EQ(timed, g.samples);
    sum += g.samples;
  }
  EXPECT_EQ(sum, F::kTotalSamples);
}

TEST_F(ViewMixed, KernelModuleAndNativeFramesAreTold) {
  convert::Profile profile = convert::loadProfile(jfr::reader::Recording::open(path_));
  const convert::SampleGroup* worker = nullptr;
  for (const auto& g : profile.groups) {
    if (profile.threads[g.thread].name == "worker-1") worker = &g;
  }
  ASSERT_NE(worker, nullptr);
  std::vector<uint32_t> frames = profile.stackLeafFirst(worker->node);
  ASSERT_EQ(frames.size(), 9u);
  std::vector<std::pair<std::string, FrameKind>> expected = {
      {"copy_user_enhanced_fast_string (kernel)", FrameKind::kKernel},
      {"xfs_file_read_iter (xfs)", FrameKind::kKernel},
      {"vfs_read (kernel)", FrameKind::kKernel},
      {"entry_SYSCALL_64_after_hwframe (kernel)", FrameKind::kKernel},
      {"read (libc.so.6)", FrameKind::kNative},
      {"Java_java_io_FileInputStream_readBytes (libjava.so)", FrameKind::kNative},
      {"java.io.FileInputStream.readBytes(byte[], int, int)", FrameKind::kNative},
      {"Work.readLoop()", FrameKind::kJitCompiled},
      {"java.lang.Thread.run()", FrameKind::kInterpreted}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& frame = profile.frames[frames[i]];
    EXPECT_EQ(profile.methods[frame.method].name, expected[i].first) << i;
    EXPECT_EQ(frame.kind, expected[i].second) << i;
  }
  EXPECT_EQ(profile.methods[profile.frames[frames[4]].method].owner, "libc.so.6");
  EXPECT_FALSE(profile.methods[profile.frames[frames[4]].method].java);
  EXPECT_TRUE(profile.methods[profile.frames[frames[6]].method].java);
  EXPECT_EQ(profile.frames[frames[8]].line, 1583);
}

TEST_F(ViewMixed, HotMethodsShowSelfAndTotal) {
  std::string text = view::hotMethodsView(digest(), wide());
  auto rows = tableRows(text, "Hot Methods");
  ASSERT_GE(rows.size(), 5u) << text;
  EXPECT_EQ(rows[0][0], "Work.hot(int)") << text;
  EXPECT_EQ(rows[0][1], "60");
  EXPECT_EQ(rows[0][2], "57.14%");
  EXPECT_EQ(rows[1][0], "copy_user_enhanced_fast_string (kernel)");
  EXPECT_EQ(cell(rows, "memcpy (libc.so.6)", 1), "10");
  EXPECT_EQ(cell(rows, "[stack trace unavailable]", 1), "5");
  EXPECT_EQ(cell(rows, "Work.main(String[])", 1), "0");
  EXPECT_EQ(cell(rows, "Work.main(String[])", 3), "60");
  EXPECT_EQ(cell(rows, "read (libc.so.6)", 4), "28.57%");
}

TEST_F(ViewMixed, CpuTimeHotMethodsCountTopFrames) {
  std::string text = view::cpuTimeHotMethodsView(digest(), wide());
  auto rows = tableRows(text, "Java Methods that Execute the Most from CPU Time Sampler");
  ASSERT_EQ(rows.size(), 4u) << text;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"Work.hot(int)", "60", "57.14%"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"copy_user_enhanced_fast_string (kernel)", "30", "28.57%"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"memcpy (libc.so.6)", "10", "9.52%"}));
  EXPECT_EQ(rows[3], (std::vector<std::string>{"[stack trace unavailable]", "5", "4.76%"}));
  view::ViewOptions top2 = wide();
  top2.top = 2;
  EXPECT_EQ(tableRows(view::cpuTimeHotMethodsView(digest(), top2), "CPU Time Sampler").size(), 2u);
}

TEST_F(ViewMixed, ThreadAndMethodFilters) {
  EXPECT_EQ(digest("worker-1").profile.totalSamples, F::kWorkerSamples);
  EXPECT_EQ(digest("wkr-1").profile.totalSamples, F::kWorkerSamples);
  EXPECT_EQ(digest("1003").profile.totalSamples, F::kGcSamples);
  EXPECT_EQ(digest("main").profile.totalSamples, F::kMainSamples + F::kFailedSamples);
  EXPECT_EQ(digest("no-such-thread").profile.totalSamples, 0u);
  EXPECT_EQ(digest("", "readBytes").profile.totalSamples, F::kWorkerSamples);
  EXPECT_EQ(digest("", "(libc.so.6)").profile.totalSamples, F::kWorkerSamples + F::kGcSamples);
  EXPECT_EQ(digest("main", "libc").profile.totalSamples, 0u);
  // Losses and traces follow the thread filter; timings the method filter.
  EXPECT_EQ(digest("worker-1").totalLost(), 0);
  EXPECT_EQ(digest("main").totalLost(), F::kLostMain);
  EXPECT_EQ(digest("worker-1").traces.size(), 0u);
  EXPECT_EQ(digest("", "never").timings.size(), 1u);
}

TEST_F(ViewMixed, ThreadsView) {
  std::string text = view::threadsView(digest(), wide());
  auto rows = tableRows(text, "CPU Time by Thread");
  ASSERT_EQ(rows.size(), 3u) << text;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"main", "1001", "65", "61.90%", "650.00 ms", "3", "Work.hot(int)"}));
  EXPECT_EQ(rows[1][0], "worker-1");
  EXPECT_EQ(rows[1][5], "0");
  EXPECT_EQ(rows[2][0], "gc-thread");
  EXPECT_EQ(rows[2][6], "memcpy (libc.so.6)");
}

TEST_F(ViewMixed, LostViewByCauseAndThread) {
  view::RecordingDigest d = digest();
  EXPECT_TRUE(d.writtenByJfrbpf);
  EXPECT_EQ(d.totalLost(), F::kLostMain + F::kLostThrottling);
  std::string text = view::lostView(d, wide());
  EXPECT_NE(text.find("Lost samples:     10 (8.70% of 115 taken)"), std::string::npos) << text;
  auto causes = tableRows(text, "Lost Samples by Cause");
  ASSERT_EQ(causes.size(), 2u) << text;
  EXPECT_EQ(causes[0], (std::vector<std::string>{"kernel throttling", "7", "70.00%"}));
  EXPECT_EQ(causes[1], (std::vector<std::string>{"ring buffer full", "3", "30.00%"}));
  auto threads = tableRows(text, "Lost Samples by Thread");
  ASSERT_EQ(threads.size(), 2u) << text;
  EXPECT_EQ(threads[0], (std::vector<std::string>{"main", "1001", "65", "3", "4.41%"}));
  EXPECT_EQ(threads[1][0], "(not attributable to a thread)");
  EXPECT_EQ(threads[1][3], "7");
}

TEST_F(ViewMixed, MethodTimingShowsTheLatestValuesAndNA) {
  std::string text = view::methodTimingView(digest(), wide());
  auto rows = tableRows(text, "Method Timing");
  ASSERT_EQ(rows.size(), 2u) << text;
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"Work.compute(int)", "1,000", "0.150000 ms", "0.200000 ms", "5.000000 ms"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"Work.never()", "0", "N/A", "N/A", "N/A"}));
}

TEST_F(ViewMixed, MethodTracesWithCallerStacks) {
  std::string text = view::methodTracesView(digest(), wide());
  auto rows = tableRows(text, "Traced Methods");
  ASSERT_EQ(rows.size(), 1u) << text;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"Work.compute(int)", "3", "16.00 ms", "5.33 ms", "12.00 ms"}));
  size_t longest = text.find("12.00 ms  Work.compute(int)");
  size_t shortest = text.find("1.00 ms  Work.compute(int)");
  ASSERT_NE(longest, std::string::npos) << text;
  ASSERT_NE(shortest, std::string::npos) << text;
  EXPECT_LT(longest, shortest);
  EXPECT_NE(text.find("in main (tid 1001)"), std::string::npos) << text;
  EXPECT_NE(text.find("    at Work.main(String[]) line: 7 [int]"), std::string::npos) << text;
}

TEST_F(ViewMixed, SummaryTellsWhatTheRecordingHolds) {
  std::string text = view::summaryView(digest(), wide());
  EXPECT_NE(text.find("2 chunks"), std::string::npos) << text;
  EXPECT_NE(text.find("written by jfrbpf"), std::string::npos) << text;
  EXPECT_NE(text.find("Samples:          105, 1.05 s of CPU time (5 without stack trace, 6 safepoint-biased)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Lost samples:     10 (8.70% of samples taken): kernel throttling 7, ring buffer full 3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Threads:          3 with samples; busiest main (tid 1001) 61.90%"), std::string::npos) << text;
  EXPECT_NE(text.find(std::string("warning: ") + F::kNote), std::string::npos) << text;
  auto self = tableRows(text, "Top Methods by Self Samples");
  ASSERT_FALSE(self.empty());
  EXPECT_EQ(self[0][0], "Work.hot(int)");
  auto total = tableRows(text, "Top Java Methods by Total Samples");
  ASSERT_FALSE(total.empty()) << text;
  EXPECT_EQ(total[0][1], "60");
  for (const auto& row : total) {
    EXPECT_EQ(row[0].find(" ("), std::string::npos) << "native code in the Java list: " << row[0];
  }
}

TEST_F(ViewMixed, ViewsFitTheWidth) {
  view::ViewOptions narrow;
  narrow.width = 60;
  for (const auto& v : view::allViews()) {
    std::istringstream lines(v.render(digest(), narrow));
    std::string line;
    while (std::getline(lines, line)) EXPECT_LE(view::displayWidth(line), 60u) << v.name << ": " << line;
  }
}

TEST_F(ViewMixed, CollapsedTotalsEqualTheSampleCount) {
  convert::Profile profile = convert::loadProfile(jfr::reader::Recording::open(path_));
  std::ostringstream out;
  convert::writeCollapsed(profile, {}, out);
  uint64_t total = 0;
  auto stacks = parseCollapsed(out.str(), &total);
  EXPECT_EQ(total, F::kTotalSamples);
  EXPECT_EQ(stacks["Work.main(String[]);Work.compute(int);Work.hot(int)"], F::kMainSamples);
  EXPECT_EQ(stacks["[stack trace unavailable]"], F::kFailedSamples);
  EXPECT_EQ(stacks["start_thread (libc.so.6);thread_native_entry (libjvm.so);GCTaskThread::run() (libjvm.so);"
                   "memcpy (libc.so.6)"],
            F::kGcSamples);

  std::ostringstream timed;
  convert::CollapsedOptions byTime;
  byTime.weight = convert::Weight::kCpuTime;
  byTime.threadRoots = true;
  byTime.annotate = true;
  convert::writeCollapsed(profile, byTime, timed);
  auto weighted = parseCollapsed(timed.str(), &total);
  EXPECT_EQ(total, F::kTotalSamples * F::kPeriodNanos);
  EXPECT_EQ(weighted["[main tid=1001];Work.main(String[])_[0];Work.compute(int)_[j];Work.hot(int)_[i]"],
            F::kMainSamples * F::kPeriodNanos)
      << timed.str();
  bool kernelSuffix = false;
  for (const auto& [stack, weight] : weighted) {
    EXPECT_EQ(stack.front(), '[') << stack;
    kernelSuffix |= stack.ends_with("copy_user_enhanced_fast_string (kernel)_[k]");
  }
  EXPECT_TRUE(kernelSuffix) << timed.str();
}

TEST_F(ViewMixed, PprofDecodesWithProtoc) {
  if (!havePprofDecoder()) GTEST_SKIP() << "protoc not installed (protobuf-compiler)";
  std::string out = dir_->file("mixed.pb.gz");
  convert::ConvertResult result = convert::convertRecording(path_, convert::Format::kPprof, out);
  EXPECT_EQ(result.samples, F::kTotalSamples);
  DecodedPprof decoded = decodePprof(out);
  EXPECT_EQ(decoded.sampleTypes(), (std::vector<std::string>{"samples/count", "cpu/nanoseconds"}));
  // Sample values come in pairs: samples, then CPU nanoseconds.
  EXPECT_EQ(decoded.valueSums(), (std::vector<int64_t>{static_cast<int64_t>(F::kTotalSamples),
                                                       static_cast<int64_t>(F::kTotalSamples) * F::kPeriodNanos}));
  for (const char* name : {"\"samples\"", "\"cpu\"", "\"nanoseconds\"", "\"Work.hot(int)\"", "\"memcpy (libc.so.6)\"",
                           "\"libc.so.6\"", "\"thread\"", "\"worker-1\""}) {
    EXPECT_NE(decoded.text.find(name), std::string::npos) << name;
  }
  // Work.hot was inlined into Work.compute: one location with two lines, the caller last.
  EXPECT_NE(decoded.text.find("has_functions: true"), std::string::npos);
  std::regex twoLines(
      "line \\{\\s*function_id: [0-9]+\\s*line: 12\\s*\\}\\s*line \\{\\s*function_id: [0-9]+\\s*line: 20");
  EXPECT_TRUE(std::regex_search(decoded.text, twoLines)) << decoded.text.substr(0, 3000);
}

TEST_F(ViewMixed, HtmlIsSelfContained) {
  std::string out = dir_->file("mixed.html");
  convert::ConvertOptions options;
  options.title = "Title with <tags> & \"quotes\"";
  convert::convertRecording(path_, convert::Format::kHtml, out, options);
  std::string html = readFile(out);
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("{{"), std::string::npos);
  EXPECT_NE(html.find("Title with &lt;tags&gt; &amp; &quot;quotes&quot;"), std::string::npos);
  EXPECT_NE(html.find("\"Work.hot(int)\""), std::string::npos);
  EXPECT_NE(html.find("\"xfs_file_read_iter (xfs)\""), std::string::npos);
  // Frame names are stored once each, however many stacks use them.
  size_t count = 0;
  for (size_t pos = html.find("\"memcpy (libc.so.6)\""); pos != std::string::npos;
       pos = html.find("\"memcpy (libc.so.6)\"", pos + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 1u);

  // Filtered: only the chosen thread is listed.
  options.samples.filter.thread = "worker-1";
  convert::convertRecording(path_, convert::Format::kHtml, out, options);
  EXPECT_NE(readFile(out).find("\"threads\":[[\"worker-1\",1002]]"), std::string::npos);
}

TEST_F(ViewMixed, CliViewAndConvert) {
  CliResult summary = runCli({"view", path_});
  EXPECT_EQ(summary.exitCode, 0) << summary.output;
  EXPECT_NE(summary.output.find("Recording Summary"), std::string::npos);
  CliResult jdkOrder = runCli({"view", "hot-methods", path_, "--top", "1", "--width", "100"});
  EXPECT_EQ(jdkOrder.exitCode, 0) << jdkOrder.output;
  EXPECT_EQ(tableRows(jdkOrder.output, "Hot Methods").size(), 1u) << jdkOrder.output;

  CliResult collapsed = runCli({"convert", path_, "--to", "collapsed", "-o", "-", "--thread", "gc-thread"});
  EXPECT_EQ(collapsed.exitCode, 0) << collapsed.output;
  uint64_t total = 0;
  parseCollapsed(collapsed.output, &total);
  EXPECT_EQ(total, F::kGcSamples);

  std::string copy = dir_->file("copy.jfr");
  std::filesystem::copy_file(path_, copy, std::filesystem::copy_options::overwrite_existing);
  for (const char* format : {"html", "pprof", "collapsed"}) {
    CliResult converted = runCli({"convert", copy, "--to", format});
    EXPECT_EQ(converted.exitCode, 0) << converted.output;
    EXPECT_NE(converted.output.find("jfrbpf: wrote"), std::string::npos) << converted.output;
  }
  EXPECT_TRUE(std::filesystem::exists(dir_->file("copy.html")));
  EXPECT_TRUE(std::filesystem::exists(dir_->file("copy.pb.gz")));
  EXPECT_TRUE(std::filesystem::exists(dir_->file("copy.collapsed")));
  // No temporary files ("<output>.XXXXXX") left next to the outputs.
  for (const auto& entry : std::filesystem::directory_iterator(dir_->path())) {
    std::string name = entry.path().filename().string();
    for (const char* output : {".html.", ".pb.gz.", ".collapsed."})
      EXPECT_EQ(name.find(output), std::string::npos) << name;
  }
}

TEST_F(ViewMixed, CliErrorsAreOneLine) {
  struct Case {
    std::vector<std::string> args;
    int exitCode;
    std::string message;
  };
  std::string corrupt = dir_->file("corrupt.jfr");
  std::string bytes = readFile(path_);
  writeFile(corrupt, bytes.substr(0, bytes.size() / 2));
  std::string notJfr = dir_->file("notes.txt");
  writeFile(notJfr, "just some text, certainly no flight recording here\n");
  std::vector<Case> cases = {
      {{"view", "/nonexistent/app.jfr"}, 1, "jfrbpf: cannot open /nonexistent/app.jfr: No such file or directory"},
      {{"view", corrupt}, 1, corrupt},
      {{"view", notJfr}, 1, notJfr},
      {{"view", path_, "flames"}, 2, "jfrbpf: unknown view 'flames' (views: summary, hot-methods,"},
      {{"view", path_, "--bogus"}, 2, "jfrbpf: unknown option '--bogus' (see jfrbpf view --help)"},
      {{"view"}, 2, "jfrbpf: no recording given"},
      {{"view", path_, "--top", "0"}, 2, "jfrbpf: invalid --top '0'"},
      {{"view", path_, "--event", "jdk.NoSuchEvent"}, 2, "jfrbpf: the recording has no event type jdk.NoSuchEvent"},
      {{"convert", path_}, 2, "jfrbpf: give the output format"},
      {{"convert", path_, "--to", "svg"}, 2, "jfrbpf: invalid --to 'svg'"},
      {{"convert", path_, "--to", "html", "-o", "/nonexistent/dir/out.html"},
       1,
       "jfrbpf: cannot create /nonexistent/dir/out.html"},
      {{"convert", path_, "--to", "html", "-o", dir_->path()}, 2, "it is a directory"},
      {{"convert", corrupt, "--to", "pprof"}, 1, corrupt},
  };
  for (const Case& c : cases) expectCliError(c.args, c.exitCode, c.message);
}

TEST_F(ViewMixed, CliHelp) {
  CliResult view = runCli({"view", "--help"});
  EXPECT_EQ(view.exitCode, 0);
  for (const auto& v : view::allViews()) EXPECT_NE(view.output.find("  " + std::string(v.name)), std::string::npos);
  CliResult convert = runCli({"convert", "-h"});
  EXPECT_EQ(convert.exitCode, 0);
  EXPECT_NE(convert.output.find("--to FORMAT"), std::string::npos);
}

// A stack that stopped before its thread's outermost frame must not pass for a thread root: jfrbpf's own
// truncated stacks end in a frame that names the cause, and any other truncated stack (a JDK's, deeper
// than its depth) is put under "[truncated]".
TEST(ViewTruncated, TruncatedStacksHangUnderARootThatSaysSo) {
  TempDir dir;
  std::string path = dir.file("truncated.jfr");
  {
    jfr::RecordingOptions options;
    options.path = path;
    jfr::Recording out(options);
    auto java = [&](const char* name) { return out.internMethod(out.internClass("Work", 1), name, "()V", 9); };
    jfr::MethodId marker =
        out.internMethod(out.internClass("jfrbpf"), "[truncated: no unwind info]", jfr::kNativeMethodDescriptor);
    jfr::ThreadId thread = out.internThread({"main", 1001, "main", 1, false});
    std::vector<jfr::StackFrame> complete = {{java("sort"), 3, 1, jfr::FrameType::JitCompiled},
                                             {java("main"), 1, 1, jfr::FrameType::Interpreted}};
    std::vector<jfr::StackFrame> marked = {{java("sort"), 3, 1, jfr::FrameType::JitCompiled},
                                           {marker, -1, -1, jfr::FrameType::Native}};
    std::vector<jfr::StackFrame> unmarked = {{java("sort"), 3, 1, jfr::FrameType::JitCompiled}};
    const jfr::Ticks start = jfr::Recording::now();
    for (int i = 0; i < 5; ++i) out.cpuTimeSample(start + i, complete, false, thread, false, 10'000'000, false);
    for (int i = 0; i < 3; ++i) out.cpuTimeSample(start + i, marked, true, thread, false, 10'000'000, false);
    for (int i = 0; i < 2; ++i) out.cpuTimeSample(start + i, unmarked, true, thread, false, 10'000'000, false);
    out.truncatedStacks(start + 10, "no unwind info", 3);
    out.close();
  }
  convert::Profile profile = convert::loadProfile(jfr::reader::Recording::open(path));
  EXPECT_EQ(profile.truncatedSamples, 5u);
  std::ostringstream collapsed;
  convert::writeCollapsed(profile, {}, collapsed);
  auto stacks = parseCollapsed(collapsed.str());
  EXPECT_EQ(stacks["Work.main();Work.sort()"], 5u) << collapsed.str();
  EXPECT_EQ(stacks["[truncated: no unwind info];Work.sort()"], 3u) << collapsed.str();
  EXPECT_EQ(stacks["[truncated];Work.sort()"], 2u) << collapsed.str();
  EXPECT_EQ(stacks.count("Work.sort()"), 0u) << "a truncated stack passes for a root: " << collapsed.str();

  // The JDK's own tool reads the marker frame and jfrbpf's count of truncated stacks by cause.
  RunResult print = run({std::string(kJdkHome) + "/bin/jfr", "print", "--events",
                         "jdk.CPUTimeSample,jfrbpf.TruncatedStacks", path});
  ASSERT_EQ(print.exitCode, 0) << print.output;
  EXPECT_NE(print.output.find("jfrbpf.[truncated: no unwind info]()"), std::string::npos) << print.output;
  EXPECT_NE(print.output.find("cause = \"no unwind info\""), std::string::npos) << print.output;
}

}  // namespace
}  // namespace jfrbpf::test
