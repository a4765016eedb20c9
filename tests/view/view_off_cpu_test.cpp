// Off-CPU views and conversions (off-CPU and wall-clock flame graphs) on a recording whose off-CPU and CPU
// samples are known exactly (see off_cpu_recording.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "formats/convert/convert.h"
#include "formats/jfr/reader/recording.h"
#include "tests/view/off_cpu_recording.h"
#include "tests/view/recording_suite.h"
#include "tests/view/synthetic_recording.h"
#include "tests/view/view_test_support.h"
#include "userspace/view/recording_digest.h"
#include "userspace/view/views.h"

namespace jfrbpf::test {
namespace {

using F = OffCpuRecordingFacts;
using Rows = std::vector<std::vector<std::string>>;

struct OffCpuWriter {
  static constexpr const char* kFileName = "offcpu.jfr";
  static void write(const std::string& path) { writeOffCpuRecording(path); }
};

class ViewOffCpu : public RecordingSuite<OffCpuWriter> {
 protected:
  static std::string offCpuView(const view::RecordingDigest& d) {
    view::ViewOptions options;
    options.width = 160;
    return view::offCpuView(d, options);
  }
};

TEST_F(ViewOffCpu, ProfileIsWeightedByOffCpuTime) {
  auto recording = jfr::reader::Recording::open(path_);
  ASSERT_EQ(recording.chunks().size(), 2u);
  convert::Profile profile = convert::loadTimeProfile(recording, {}, convert::TimeKind::kOffCpu);
  EXPECT_EQ(profile.eventName, "jfrbpf.OffCPUSample");
  EXPECT_EQ(profile.timeKind, convert::TimeKind::kOffCpu);
  EXPECT_EQ(profile.totalSamples, F::kOffCpuSamples);
  EXPECT_EQ(profile.totalCpuNanos, F::kOffCpu);  // weights, not durations: worker-1's waits are 120 ms each
  for (const auto& g : profile.groups) {
    int64_t timed = 0;
    for (const auto& t : g.times) timed += t.nanos;
    EXPECT_EQ(timed, g.cpuNanos);
  }
}

TEST_F(ViewOffCpu, WaitsByMethodAndKernelFunction) {
  std::string text = offCpuView(digest());
  EXPECT_NE(text.find("Samples:          11, 3.10 s of off-CPU time"), std::string::npos) << text;
  EXPECT_NE(text.find("Lost samples:     3 (21.43% of samples taken), 40.00 ms of off-CPU time"), std::string::npos)
      << text;
  Rows methods = tableRows(text, "Off-CPU Time by Method");
  ASSERT_EQ(methods.size(), 5u) << text;
  EXPECT_EQ(methods[0], (std::vector<std::string>{"java.lang.Thread.sleep(long)", "2.00 s", "64.52%", "4"}));
  EXPECT_EQ(methods[1], (std::vector<std::string>{"java.lang.Object.wait(long)", "900.00 ms", "29.03%", "3"}));
  // No Java frame: the innermost native frame outside the kernel.
  EXPECT_EQ(methods[2], (std::vector<std::string>{"pthread_cond_wait (libc.so.6)", "100.00 ms", "3.23%", "1"}));
  EXPECT_EQ(methods[3], (std::vector<std::string>{"java.io.FileInputStream.readBytes(byte[], int, int)", "60.00 ms",
                                                  "1.94%", "1"}));
  EXPECT_EQ(methods[4], (std::vector<std::string>{"Work.process()", "40.00 ms", "1.29%", "2"}));

  Rows kernel = tableRows(text, "Off-CPU Time by Kernel Function");
  ASSERT_EQ(kernel.size(), 4u) << text;
  EXPECT_EQ(kernel[0], (std::vector<std::string>{"hrtimer_nanosleep (kernel)", "2.00 s", "64.52%", "4"}));
  EXPECT_EQ(kernel[1], (std::vector<std::string>{"futex_wait_queue (kernel)", "1.00 s", "32.26%", "4"}));
  EXPECT_EQ(kernel[2], (std::vector<std::string>{"io_schedule (kernel)", "60.00 ms", "1.94%", "1"}));
  EXPECT_EQ(kernel[3], (std::vector<std::string>{"irqentry_exit_to_user_mode (kernel)", "40.00 ms", "1.29%", "2"}));
}

TEST_F(ViewOffCpu, StatesWithTheirRunDelay) {
  Rows states = tableRows(offCpuView(digest()), "Off-CPU Time by State");
  ASSERT_EQ(states.size(), 4u);
  EXPECT_EQ(states[0], (std::vector<std::string>{"sleeping", "2.90 s", "93.55%", "7", "550.0 us"}));  // 4 x 100 + 3 x 50
  EXPECT_EQ(states[1], (std::vector<std::string>{"unknown", "100.00 ms", "3.23%", "1", "0 ns"}));
  EXPECT_EQ(states[2], (std::vector<std::string>{"uninterruptible", "60.00 ms", "1.94%", "1", "1.00 ms"}));
  EXPECT_EQ(states[3], (std::vector<std::string>{"preempted", "40.00 ms", "1.29%", "2", "40.00 ms"}));
}

TEST_F(ViewOffCpu, ThreadsWithTheirCpuTimeAndLosses) {
  std::string text = offCpuView(digest());
  Rows threads = tableRows(text, "Off-CPU Time by Thread");
  ASSERT_EQ(threads.size(), 3u) << text;
  EXPECT_NE(text.find("Kernel Off-CPU Kernel CPU Lost Samples"), std::string::npos) << text;
  EXPECT_EQ(threads[0], (std::vector<std::string>{"main", "2001", "2.00 s", "64.52%", "2.09 s", "310.00 ms", "1"}));
  EXPECT_EQ(threads[1], (std::vector<std::string>{"worker-1", "2002", "1.00 s", "32.26%", "1.04 s", "205.00 ms", "2"}));
  EXPECT_EQ(threads[2], (std::vector<std::string>{"gc-thread", "2003", "100.00 ms", "3.23%", "-", "-", "0"}));

  // Without the kernel's accounting, the CPU time the thread's samples stand for.
  std::string sampledPath = dir_->file("sampled.jfr");
  writeOffCpuRecording(sampledPath, false);
  std::string sampled = offCpuView(digest("", "", sampledPath));
  EXPECT_NE(sampled.find("Sampled CPU"), std::string::npos) << sampled;
  EXPECT_EQ(sampled.find("Kernel"), sampled.find("Kernel Function")) << sampled;
  Rows rows = tableRows(sampled, "Off-CPU Time by Thread");
  ASSERT_EQ(rows.size(), 3u) << sampled;
  EXPECT_EQ(rows[0][4], "300.00 ms");
  EXPECT_EQ(rows[1][4], "200.00 ms");
  EXPECT_EQ(rows[2][4], "0 ns");
}

TEST_F(ViewOffCpu, ThreadAndMethodFilters) {
  view::RecordingDigest worker = digest("worker-1");
  EXPECT_EQ(worker.offCpu.profile.totalCpuNanos, F::kWorkerOffCpu);
  std::string text = offCpuView(worker);
  EXPECT_NE(text.find("Lost samples:     2 (25.00% of samples taken), 30.00 ms of off-CPU time"), std::string::npos)
      << text;
  Rows methods = tableRows(text, "Off-CPU Time by Method");
  ASSERT_EQ(methods.size(), 3u) << text;
  EXPECT_EQ(methods[0], (std::vector<std::string>{"java.lang.Object.wait(long)", "900.00 ms", "90.00%", "3"}));
  Rows states = tableRows(text, "Off-CPU Time by State");
  ASSERT_EQ(states.size(), 3u) << text;
  EXPECT_EQ(states[0], (std::vector<std::string>{"sleeping", "900.00 ms", "90.00%", "3", "150.0 us"}));  // 3 x 50
  Rows threads = tableRows(text, "Off-CPU Time by Thread");
  ASSERT_EQ(threads.size(), 1u) << text;
  EXPECT_EQ(threads[0][0], "worker-1");
  EXPECT_EQ(digest("2003").offCpu.profile.totalCpuNanos, F::kGcOffCpu);  // by OS thread id

  EXPECT_EQ(digest("", "Object.wait").offCpu.profile.totalCpuNanos, F::kWorkerWait);
  EXPECT_EQ(digest("", "(kernel)").offCpu.profile.totalCpuNanos, F::kOffCpu);
  EXPECT_NE(offCpuView(digest("main", "Object.wait")).find("match the filters"), std::string::npos);
}

TEST_F(ViewOffCpu, SummaryAndLostViewCountOffCpuSamples) {
  view::ViewOptions options;
  options.width = 160;
  std::string summary = view::summaryView(digest(), options);
  EXPECT_NE(summary.find("Off-CPU samples:  11, 3.10 s of off-CPU time"), std::string::npos) << summary;
  EXPECT_NE(summary.find("Lost off-CPU:     3 (21.43% of samples taken), 40.00 ms of off-CPU time"), std::string::npos)
      << summary;

  std::string lost = view::lostView(digest(), options);
  EXPECT_NE(lost.find("Lost Off-CPU Samples"), std::string::npos) << lost;
  EXPECT_NE(lost.find("Lost samples:     3 (21.43% of 14 taken)"), std::string::npos) << lost;
  EXPECT_NE(lost.find("Lost time:        40.00 ms of off-CPU time"), std::string::npos) << lost;
  Rows byThread = tableRows(lost, "Lost Off-CPU Samples by Thread");
  ASSERT_EQ(byThread.size(), 2u) << lost;
  EXPECT_EQ(byThread[0], (std::vector<std::string>{"worker-1", "2002", "6", "2", "25.00%", "30.00 ms"}));
  EXPECT_EQ(byThread[1], (std::vector<std::string>{"main", "2001", "4", "1", "20.00%", "10.00 ms"}));
}

TEST(ViewOffCpuAbsent, ARecordingWithoutOffCpuSamplesSaysSo) {
  TempDir dir;
  std::string path = dir.file("mixed.jfr");
  writeMixedRecording(path);
  view::RecordingDigest d = view::digestRecording(path, {});
  view::ViewOptions options;
  EXPECT_EQ(view::summaryView(d, options).find("Off-CPU"), std::string::npos);
  EXPECT_EQ(view::lostView(d, options).find("Off-CPU"), std::string::npos);
  EXPECT_NE(view::offCpuView(d, options).find("No off-CPU samples (jfrbpf.OffCPUSample events) in"), std::string::npos);
}

TEST_F(ViewOffCpu, OffCpuCollapsedStacksCountNanoseconds) {
  uint64_t total = 0;
  auto stacks = collapsed({"--off-cpu"}, &total);
  EXPECT_EQ(total, static_cast<uint64_t>(F::kOffCpu));
  EXPECT_EQ(stacks.size(), 5u);
  EXPECT_EQ(stacks["Work.main(String[]);java.lang.Thread.sleep(long);JVM_Sleep (libjvm.so);clock_nanosleep (libc.so.6);"
                   "do_syscall_64 (kernel);hrtimer_nanosleep (kernel)"],
            static_cast<uint64_t>(F::kMainOffCpu));
  EXPECT_EQ(stacks["start_thread (libc.so.6);GCTaskManager::get_task() (libjvm.so);pthread_cond_wait (libc.so.6);"
                   "do_syscall_64 (kernel);futex_wait_queue (kernel)"],
            static_cast<uint64_t>(F::kGcOffCpu));
  // --weight samples counts the events instead.
  collapsed({"--off-cpu", "--weight", "samples"}, &total);
  EXPECT_EQ(total, F::kOffCpuSamples);
  collapsed({"--off-cpu", "--thread", "wkr-1"}, &total);
  EXPECT_EQ(total, static_cast<uint64_t>(F::kWorkerOffCpu));
}

TEST_F(ViewOffCpu, WallClockIsCpuPlusOffCpuTimeUnderMarkers) {
  uint64_t total = 0;
  auto stacks = collapsed({"--wall", "--thread", "worker-1"}, &total);
  EXPECT_EQ(total, static_cast<uint64_t>(F::kWorkerCpu + F::kWorkerOffCpu));
  ASSERT_EQ(stacks.size(), 4u);
  EXPECT_EQ(stacks["java.lang.Thread.run();Work.process();[on CPU]"], static_cast<uint64_t>(F::kWorkerCpu));
  EXPECT_EQ(stacks["java.lang.Thread.run();Work.take();java.lang.Object.wait(long);"
                   "ObjectMonitor::wait(long, bool, JavaThread*) (libjvm.so);__futex_abstimed_wait_common (libc.so.6);"
                   "do_syscall_64 (kernel);futex_wait (kernel);futex_wait_queue (kernel);[off CPU: sleeping]"],
            static_cast<uint64_t>(F::kWorkerWait));
  EXPECT_EQ(stacks["java.lang.Thread.run();Work.process();irqentry_exit_to_user_mode (kernel);[off CPU: preempted]"],
            static_cast<uint64_t>(F::kWorkerPreempted));
  EXPECT_EQ(stacks["java.lang.Thread.run();Work.load();java.io.FileInputStream.readBytes(byte[], int, int);"
                   "Java_java_io_FileInputStream_readBytes (libjava.so);read (libc.so.6);do_syscall_64 (kernel);"
                   "filemap_read (kernel);io_schedule (kernel);[off CPU: uninterruptible]"],
            static_cast<uint64_t>(F::kWorkerIo));

  collapsed({"--wall"}, &total);
  EXPECT_EQ(total, static_cast<uint64_t>(F::kCpu + F::kOffCpu));
  auto perThread = collapsed({"--wall", "--threads"}, &total);
  uint64_t gc = 0;
  for (const auto& [stack, nanos] : perThread) {
    if (stack.starts_with("[gc-thread tid=2003];")) gc += nanos;
  }
  EXPECT_EQ(gc, static_cast<uint64_t>(F::kGcOffCpu));
}

TEST_F(ViewOffCpu, PprofSampleTypesNameTheTime) {
  if (!havePprofDecoder()) GTEST_SKIP() << "protoc not installed (protobuf-compiler)";
  for (auto [flag, type, nanos] :
       {std::tuple{"--off-cpu", "off_cpu", F::kOffCpu}, std::tuple{"--wall", "wall", F::kCpu + F::kOffCpu}}) {
    std::string out = dir_->file(std::string(type) + ".pb.gz");
    CliResult converted = runCli({"convert", path_, "--to", "pprof", flag, "-o", out});
    ASSERT_EQ(converted.exitCode, 0) << converted.output;
    DecodedPprof decoded = decodePprof(out);
    EXPECT_EQ(decoded.sampleTypes(), (std::vector<std::string>{"samples/count", std::string(type) + "/nanoseconds"}));
    EXPECT_EQ(decoded.text.find("string_table: \"cpu\""), std::string::npos) << type;
    // Sample values come in pairs: samples, then nanoseconds.
    EXPECT_EQ(decoded.valueSums().at(1), nanos) << type;
  }
}

TEST_F(ViewOffCpu, HtmlIsWeightedByTime) {
  std::string copy = dir_->file("copy.jfr");
  std::filesystem::copy_file(path_, copy, std::filesystem::copy_options::overwrite_existing);
  CliResult converted = runCli({"convert", copy, "--to", "html", "--off-cpu"});
  ASSERT_EQ(converted.exitCode, 0) << converted.output;
  EXPECT_NE(converted.output.find("(11 jfrbpf.OffCPUSample samples, 3.10 s of off-CPU time, 3 threads)"),
            std::string::npos)
      << converted.output;
  std::string html = readFile(dir_->file("copy-off-cpu.html"));  // beside, not over, the CPU flame graph
  EXPECT_NE(html.find("<title>Off-CPU flame graph: copy.jfr</title>"), std::string::npos);
  EXPECT_NE(html.find("\"measure\":\"off-CPU time\""), std::string::npos);
  EXPECT_NE(html.find("\"cpuNanos\":" + std::to_string(F::kOffCpu)), std::string::npos);
  // gc-thread's one group weighs its 100 ms, not its one sample.
  std::smatch groups;
  ASSERT_TRUE(std::regex_search(html, groups, std::regex("\"groups\":\\[([0-9,]*)\\]")));
  std::vector<uint64_t> numbers;
  std::istringstream in(groups[1].str());
  for (std::string n; std::getline(in, n, ',');) numbers.push_back(std::stoull(n));
  uint64_t sum = 0;
  for (size_t i = 2; i < numbers.size(); i += 3) sum += numbers[i];
  EXPECT_EQ(sum, static_cast<uint64_t>(F::kOffCpu));

  converted = runCli({"convert", copy, "--to", "html", "--wall", "--thread", "main"});
  ASSERT_EQ(converted.exitCode, 0) << converted.output;
  EXPECT_NE(converted.output.find("(34 samples: 300.00 ms on CPU + 2.00 s off CPU, 1 thread)"), std::string::npos)
      << converted.output;
  html = readFile(dir_->file("copy-wall.html"));
  EXPECT_NE(html.find("<title>Wall-clock flame graph: copy.jfr</title>"), std::string::npos);
  EXPECT_NE(html.find("\"measure\":\"wall-clock time\""), std::string::npos);
  EXPECT_NE(html.find("\"[off CPU: sleeping]\""), std::string::npos);
}

TEST_F(ViewOffCpu, CliRejectsMixedChoicesAndExplains) {
  expectCliError({"convert", path_, "--to", "html", "--off-cpu", "--wall"}, 2,
                 "jfrbpf: --off-cpu and --wall together: --wall already has the off-CPU samples; give one of them");
  expectCliError({"convert", path_, "--wall", "--to", "html", "--off-cpu"}, 2, "jfrbpf: --off-cpu and --wall together");
  expectCliError({"convert", path_, "--to", "collapsed", "--off-cpu", "--event", "jdk.ExecutionSample"}, 2,
                 "jfrbpf: --off-cpu with --event: it uses jfrbpf.OffCPUSample events; drop --event");
  expectCliError({"convert", path_, "--event", "jdk.CPUTimeSample", "--to", "pprof", "--wall"}, 2,
                 "jfrbpf: --wall with --event: it uses jdk.CPUTimeSample and jfrbpf.OffCPUSample events; drop --event");
  CliResult help = runCli({"convert", "--help"});
  EXPECT_NE(help.output.find("--off-cpu"), std::string::npos);
  EXPECT_NE(help.output.find("[off CPU: STATE]"), std::string::npos);
  EXPECT_NE(help.output.find("--to html --wall --thread main"), std::string::npos);
  CliResult viewHelp = runCli({"view", "--help"});
  EXPECT_NE(viewHelp.output.find("  off-cpu               where threads waited"), std::string::npos) << viewHelp.output;
  CliResult view = runCli({"view", path_, "off-cpu", "--thread", "main", "--top", "1", "--width", "100"});
  EXPECT_EQ(view.exitCode, 0) << view.output;
  EXPECT_EQ(tableRows(view.output, "Off-CPU Time by Method"),
            (Rows{{"java.lang.Thread.sleep(long)", "2.00 s", "100.00%", "4"}}))
      << view.output;
}

}  // namespace
}  // namespace jfrbpf::test
