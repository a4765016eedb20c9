// The allocation view and conversions (flame graphs, collapsed stacks and pprof weighted in bytes) on a
// recording whose allocation samples are known exactly (see allocation_recording.h). Every figure below is
// computed by hand from those facts: 5,000,000 bytes in all, so 1,000,000 bytes are 20.00 %.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "formats/convert/convert.h"
#include "formats/jfr/reader/recording.h"
#include "tests/view/allocation_recording.h"
#include "tests/view/recording_suite.h"
#include "tests/view/synthetic_recording.h"
#include "tests/view/view_test_support.h"
#include "userspace/view/recording_digest.h"
#include "userspace/view/views.h"

namespace jfrbpf::test {
namespace {

using F = AllocationRecordingFacts;
using Rows = std::vector<std::vector<std::string>>;

struct AllocationWriter {
  static constexpr const char* kFileName = "alloc.jfr";
  static void write(const std::string& path) { writeAllocationRecording(path); }
};

class ViewAllocation : public RecordingSuite<AllocationWriter> {
 protected:
  static std::string allocationView(const view::RecordingDigest& d, size_t top = 25) {
    view::ViewOptions options;
    options.width = 160;
    options.top = top;
    return view::allocationView(d, options);
  }
};

TEST_F(ViewAllocation, ProfileIsWeightedByBytesUnderTheClass) {
  auto recording = jfr::reader::Recording::open(path_);
  ASSERT_EQ(recording.chunks().size(), 2u);
  convert::Profile profile = convert::loadAllocationProfile(recording, {});
  EXPECT_EQ(profile.eventName, "jdk.ObjectAllocationSample");
  EXPECT_EQ(profile.timeKind, convert::TimeKind::kAlloc);
  EXPECT_EQ(profile.totalSamples, F::kSamples);
  EXPECT_EQ(profile.totalCpuNanos, F::kBytes);  // bytes, in the field every weighted profile uses
  // One group per (thread, stack, class): the classes are the leaves, interned once across both chunks.
  EXPECT_EQ(profile.groups.size(), 6u);
  size_t classes = 0;
  for (const convert::ProfileFrame& frame : profile.frames) {
    classes += frame.kind == convert::FrameKind::kAllocatedClass;
  }
  EXPECT_EQ(classes, 5u);
  for (const auto& g : profile.groups) {
    EXPECT_EQ(profile.frameOf(g.node).kind, convert::FrameKind::kAllocatedClass);
    int64_t timed = 0;
    for (const auto& t : g.times) timed += t.nanos;
    EXPECT_EQ(timed, g.cpuNanos);
  }
}

TEST_F(ViewAllocation, ByClassSiteAndThread) {
  std::string text = allocationView(digest());
  EXPECT_NE(text.find("Allocation (jdk.ObjectAllocationSample)"), std::string::npos) << text;
  EXPECT_NE(text.find("Samples:          11, 5.0 MB allocated"), std::string::npos) << text;

  // Classes as Java spells them; com.example.Node and int[][] differ in bytes, not only in name.
  Rows classes = tableRows(text, "Allocation by Class");
  EXPECT_EQ(classes, (Rows{{"byte[]", "3.5 MB", "70.00%", "4"},
                           {"java.lang.Object[]", "800.0 kB", "16.00%", "2"},
                           {"java.lang.String", "400.0 kB", "8.00%", "2"},
                           {"com.example.Node", "200.0 kB", "4.00%", "2"},
                           {"int[][]", "100.0 kB", "2.00%", "1"}}))
      << text;

  // The site is the top frame of the stack the JVM recorded (the frame under the class).
  Rows sites = tableRows(text, "Allocation by Site (top frame)");
  EXPECT_EQ(sites, (Rows{{"Work.readAll()", "3.0 MB", "60.00%", "3"},
                         {"Work.grow()", "1.3 MB", "26.00%", "3"},
                         {"Work.format(int)", "400.0 kB", "8.00%", "2"},
                         {"Work.link()", "300.0 kB", "6.00%", "3"}}))
      << text;

  Rows threads = tableRows(text, "Allocation by Thread");
  EXPECT_EQ(threads, (Rows{{"main", "3001", "3.4 MB", "68.00%", "5"}, {"worker-1", "3002", "1.6 MB", "32.00%", "6"}}))
      << text;
}

TEST_F(ViewAllocation, TopAndThreadFilter) {
  // --top 1: the heaviest row of each table, and how many threads were left out.
  std::string top = allocationView(digest(), 1);
  EXPECT_EQ(tableRows(top, "Allocation by Class"), (Rows{{"byte[]", "3.5 MB", "70.00%", "4"}})) << top;
  EXPECT_EQ(tableRows(top, "Allocation by Site"), (Rows{{"Work.readAll()", "3.0 MB", "60.00%", "3"}})) << top;
  EXPECT_NE(top.find("(1 more threads; use --top N)"), std::string::npos) << top;

  // worker-1 alone (by its OS name): its shares are of its own 1,600,000 bytes.
  std::string worker = allocationView(digest("wkr-1"));
  EXPECT_NE(worker.find("Samples:          6, 1.6 MB allocated"), std::string::npos) << worker;
  EXPECT_EQ(tableRows(worker, "Allocation by Class"), (Rows{{"java.lang.Object[]", "800.0 kB", "50.00%", "2"},
                                                            {"byte[]", "500.0 kB", "31.25%", "1"},
                                                            {"com.example.Node", "200.0 kB", "12.50%", "2"},
                                                            {"int[][]", "100.0 kB", "6.25%", "1"}}))
      << worker;
  EXPECT_EQ(tableRows(worker, "Allocation by Site"),
            (Rows{{"Work.grow()", "1.3 MB", "81.25%", "3"}, {"Work.link()", "300.0 kB", "18.75%", "3"}}))
      << worker;
  EXPECT_NE(allocationView(digest("nobody")).find("match the filters"), std::string::npos);
}

TEST_F(ViewAllocation, SummaryCountsAllocationSamples) {
  view::ViewOptions options;
  options.width = 160;
  std::string summary = view::summaryView(digest(), options);
  EXPECT_NE(summary.find("Alloc samples:    11, 5.0 MB allocated"), std::string::npos) << summary;
}

TEST(ViewAllocationAbsent, ARecordingWithoutAllocationSamplesSaysSo) {
  TempDir dir;
  std::string path = dir.file("mixed.jfr");
  writeMixedRecording(path);
  view::RecordingDigest d = view::digestRecording(path, {});
  view::ViewOptions options;
  options.width = 200;
  EXPECT_EQ(view::summaryView(d, options).find("Alloc"), std::string::npos);
  std::string text = view::allocationView(d, options);
  EXPECT_NE(text.find("No allocation samples (jdk.ObjectAllocationSample events) in"), std::string::npos) << text;
  EXPECT_NE(text.find("(record with jfrbpf record --alloc)"), std::string::npos) << text;
}

TEST_F(ViewAllocation, CollapsedStacksCountBytesWithTheClassOnTop) {
  uint64_t total = 0;
  auto stacks = collapsed({"--alloc"}, &total);
  EXPECT_EQ(total, static_cast<uint64_t>(F::kBytes));
  EXPECT_EQ(stacks, (std::map<std::string, uint64_t>{
                        {"Work.main(String[]);Work.readAll();byte[]", 3'000'000},
                        {"Work.main(String[]);Work.format(int);java.lang.String", 400'000},
                        {"java.lang.Thread.run();Work.grow();java.lang.Object[]", 800'000},
                        {"java.lang.Thread.run();Work.grow();byte[]", 500'000},
                        {"java.lang.Thread.run();Work.link();com.example.Node", 200'000},
                        {"java.lang.Thread.run();Work.link();int[][]", 100'000},
                    }));
  // --annotate marks the class as async-profiler does for jdk.ObjectAllocationSample: _[k].
  stacks = collapsed({"--alloc", "--annotate", "--thread", "main"}, &total);
  EXPECT_EQ(total, static_cast<uint64_t>(F::kMain));
  EXPECT_EQ(stacks, (std::map<std::string, uint64_t>{
                        {"Work.main(String[])_[0];Work.readAll()_[j];byte[]_[k]", 3'000'000},
                        {"Work.main(String[])_[0];Work.format(int)_[j];java.lang.String_[k]", 400'000},
                    }));
  // --weight samples counts the events; bytes is the default's name.
  collapsed({"--alloc", "--weight", "samples"}, &total);
  EXPECT_EQ(total, F::kSamples);
  collapsed({"--alloc", "--weight", "bytes", "--threads"}, &total);
  EXPECT_EQ(total, static_cast<uint64_t>(F::kBytes));
}

TEST_F(ViewAllocation, PprofHasAllocObjectsAndSpace) {
  if (!havePprofDecoder()) GTEST_SKIP() << "protoc not installed (protobuf-compiler)";
  std::string out = dir_->file("alloc.pb.gz");
  CliResult converted = runCli({"convert", path_, "--to", "pprof", "--alloc", "-o", out});
  ASSERT_EQ(converted.exitCode, 0) << converted.output;
  DecodedPprof pprof = decodePprof(out);
  EXPECT_EQ(pprof.sampleTypes(), (std::vector<std::string>{"alloc_objects/count", "alloc_space/bytes"}));
  EXPECT_EQ(pprof.defaultSampleType(), "alloc_space");
  EXPECT_EQ(pprof.valueSums(), (std::vector<int64_t>{static_cast<int64_t>(F::kSamples), F::kBytes}));
  // The period: the bytes a sample stands for on average.
  EXPECT_NE(pprof.text.find("period: " + std::to_string(F::kBytes / static_cast<int64_t>(F::kSamples))),
            std::string::npos);
  for (const char* name : {"byte[]", "java.lang.Object[]", "int[][]", "[B", "Work.readAll()", "worker-1"}) {
    EXPECT_NE(std::find(pprof.strings.begin(), pprof.strings.end(), name), pprof.strings.end()) << name;
  }
  for (const char* name : {"samples", "cpu", "nanoseconds"}) {
    EXPECT_EQ(std::find(pprof.strings.begin(), pprof.strings.end(), name), pprof.strings.end()) << name;
  }
  // Each sample: (1 or more objects, their bytes); main's byte[] group is 3 samples of 3,000,000 bytes.
  EXPECT_NE(pprof.text.find("value: 3\n  value: 3000000\n"), std::string::npos) << pprof.text.substr(0, 2000);
}

TEST_F(ViewAllocation, HtmlIsWeightedByBytes) {
  std::string copy = dir_->file("copy.jfr");
  std::filesystem::copy_file(path_, copy, std::filesystem::copy_options::overwrite_existing);
  CliResult converted = runCli({"convert", copy, "--to", "html", "--alloc"});
  ASSERT_EQ(converted.exitCode, 0) << converted.output;
  EXPECT_NE(
      converted.output.find("copy-alloc.html (11 jdk.ObjectAllocationSample samples, 5.0 MB allocated, 2 threads)"),
      std::string::npos)
      << converted.output;
  std::string html = readFile(dir_->file("copy-alloc.html"));  // beside, not over, the CPU flame graph
  EXPECT_NE(html.find("<title>Allocation flame graph: copy.jfr</title>"), std::string::npos);
  EXPECT_NE(html.find("\"measure\":\"allocated memory\",\"unit\":\"bytes\""), std::string::npos);
  EXPECT_NE(html.find("\"cpuNanos\":" + std::to_string(F::kBytes)), std::string::npos);
  EXPECT_NE(html.find("\"java.lang.Object[]\""), std::string::npos);
}

TEST_F(ViewAllocation, CliRejectsMixedChoicesAndExplains) {
  expectCliError({"convert", path_, "--to", "html", "--alloc", "--off-cpu"}, 2,
                 "jfrbpf: --alloc and --off-cpu together: allocation samples weigh bytes, not time; give one of them");
  expectCliError({"convert", path_, "--wall", "--to", "html", "--alloc"}, 2,
                 "jfrbpf: --alloc and --wall together: allocation samples weigh bytes, not time; give one of them");
  expectCliError({"convert", path_, "--to", "collapsed", "--alloc", "--event", "jdk.ExecutionSample"}, 2,
                 "jfrbpf: --alloc with --event: it uses jdk.ObjectAllocationSample events; drop --event");
  expectCliError({"convert", path_, "--to", "collapsed", "--alloc", "--weight", "time"}, 2,
                 "jfrbpf: --weight time with --alloc: allocation samples weigh bytes; use --weight bytes");
  expectCliError({"convert", path_, "--to", "collapsed", "--off-cpu", "--weight", "bytes"}, 2,
                 "jfrbpf: --weight bytes without --alloc: these samples weigh time; use --weight time");
  CliResult help = runCli({"convert", "--help"});
  EXPECT_NE(help.output.find("  --alloc "), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("with --alloc alloc_objects/count"), std::string::npos) << help.output;
  CliResult viewHelp = runCli({"view", "--help"});
  EXPECT_NE(viewHelp.output.find("  allocation            what threads allocated"), std::string::npos)
      << viewHelp.output;
  CliResult unknown = runCli({"view", path_, "allocations"});
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_NE(unknown.output.find(", off-cpu, allocation, locks)"), std::string::npos) << unknown.output;
  CliResult view = runCli({"view", path_, "allocation", "--thread", "main", "--width", "100"});
  EXPECT_EQ(view.exitCode, 0) << view.output;
  EXPECT_EQ(tableRows(view.output, "Allocation by Thread"), (Rows{{"main", "3001", "3.4 MB", "100.00%", "5"}}))
      << view.output;
}

}  // namespace
}  // namespace jfrbpf::test
