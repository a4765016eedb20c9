// `jfrbpf convert --to otlp` on recordings whose contents are known exactly: the request decoded with the
// classes generated from formats/otlp/proto and compared, profile by profile, with the Profile model every
// other output is made from (per thread, per stack) and with the facts the recordings were written from.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "formats/convert/allocation_collector.h"
#include "formats/convert/convert.h"
#include "formats/convert/lock_collector.h"
#include "formats/convert/off_cpu_collector.h"
#include "formats/convert/otlp_writer.h"
#include "formats/convert/recorded_process.h"
#include "formats/convert/sample_collector.h"
#include "formats/jfr/reader/recording.h"
#include "formats/jfr/writer/recording.h"
#include "test_config.h"
#include "tests/support/child_process.h"
#include "tests/view/allocation_recording.h"
#include "tests/view/off_cpu_recording.h"
#include "tests/view/otel_context_recording.h"
#include "tests/view/otlp_request_reader.h"
#include "tests/view/synthetic_recording.h"
#include "tests/view/view_test_support.h"

namespace jfrbpf::test {
namespace {

// The model as convert reads it: virtual threads by name, as every conversion does.
convert::SampleFilter conversionFilter() {
  convert::SampleFilter filter;
  filter.virtualThreadsByName = true;
  return filter;
}

convert::Profile modelOf(const std::string& path, convert::TimeKind kind) {
  auto recording = jfr::reader::Recording::open(path);
  switch (kind) {
    case convert::TimeKind::kCpu: return convert::loadProfile(recording, {conversionFilter(), ""});
    case convert::TimeKind::kAlloc: return convert::loadAllocationProfile(recording, conversionFilter());
    case convert::TimeKind::kLock: return convert::loadLockProfile(recording, conversionFilter());
    case convert::TimeKind::kOffCpu:
    case convert::TimeKind::kWall: break;
  }
  return convert::loadTimeProfile(recording, conversionFilter(), kind);
}

std::map<std::string, OtlpTotals> modelTotalsByThread(const convert::Profile& profile) {
  std::map<std::string, OtlpTotals> totals;
  for (const convert::SampleGroup& group : profile.groups) {
    OtlpTotals& total = totals[profile.threads[group.thread].name];
    total.events += group.samples;
    total.values += group.cpuNanos;
  }
  return totals;
}

std::set<std::vector<std::string>> modelStacks(const convert::Profile& profile) {
  std::set<std::vector<std::string>> stacks;
  for (const convert::SampleGroup& group : profile.groups) {
    std::vector<std::string> names;
    for (uint32_t frame : profile.stackLeafFirst(group.node)) {
      names.push_back(profile.methods[profile.frames[frame].method].name);
    }
    stacks.insert(names);
  }
  return stacks;
}

// The profile at `index` holds what the model of `kind` holds: every sample, the same values per thread, the same
// stacks frame by frame.
void expectSameAsModel(const OtlpRequestReader& otlp, int index, const convert::Profile& model) {
  ASSERT_LT(index, otlp.profiles().size());
  const OtlpProfile& profile = otlp.profile(index);
  const convert::TimeKindNames& names = convert::timeKindNames(model.timeKind);
  EXPECT_EQ(otlp.sampleType(profile), std::string(names.sampleType) + "/" + std::string(names.unit));
  EXPECT_EQ(otlp.totals(profile), (OtlpTotals{model.totalSamples, model.totalCpuNanos}));
  EXPECT_EQ(otlp.totalsBy(profile, "thread.name"), modelTotalsByThread(model));
  const std::set<std::vector<std::string>> stacks = modelStacks(model);
  EXPECT_EQ(otlp.stacks(profile).size(), stacks.size());
  EXPECT_EQ(otlp.stacks(profile), stacks);
  for (const OtlpSample& sample : profile.samples()) {
    for (uint64_t time : sample.timestamps_unix_nano()) {
      EXPECT_GE(static_cast<int64_t>(time), model.recordingStartNanos);
      EXPECT_LE(static_cast<int64_t>(time), model.recordingEndNanos);
    }
  }
}

// `hi` and `lo` as the 16 bytes of a W3C trace id (`lo` alone: a span id's 8).
std::string idBytes(uint64_t hi, uint64_t lo) {
  std::string bytes;
  for (uint64_t word : {hi, lo}) {
    for (int shift = 56; shift >= 0; shift -= 8) bytes.push_back(static_cast<char>(word >> shift));
  }
  return bytes;
}
std::string idBytes(uint64_t id) { return idBytes(id, 0).substr(0, 8); }

// Runs `convert PATH --to otlp -o OUT OPTIONS...` and returns what it printed.
std::string convertToOtlp(const std::string& path, const std::string& out,
                          const std::vector<std::string>& options = {}) {
  std::vector<std::string> args = {"convert", path, "--to", "otlp", "-o", out};
  args.insert(args.end(), options.begin(), options.end());
  CliResult result = runCli(args);
  EXPECT_EQ(result.exitCode, 0) << result.output;
  return result.output;
}

class ConvertOtlp : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(ConvertOtlp, CpuProfileHoldsEverySampleAsTheModel) {
  using F = MixedRecordingFacts;
  const std::string path = dir_.file("mixed.jfr");
  writeMixedRecording(path);
  const std::string out = dir_.file("mixed.otlp.pb");
  const std::string report = convertToOtlp(path, out);
  EXPECT_NE(report.find("(105 jdk.CPUTimeSample samples, 3 threads)"), std::string::npos) << report;

  OtlpRequestReader otlp(out);
  ASSERT_EQ(otlp.profiles().size(), 1) << "the file has CPU samples only";
  const convert::Profile model = modelOf(path, convert::TimeKind::kCpu);
  ASSERT_EQ(model.totalSamples, F::kTotalSamples);
  expectSameAsModel(otlp, 0, model);
  const OtlpProfile& profile = otlp.profile(0);
  // The figures the recording was written with, by thread: main's failed samples count too.
  const int64_t period = F::kPeriodNanos;
  EXPECT_EQ(otlp.totalsBy(profile, "thread.name"),
            (std::map<std::string, OtlpTotals>{
                {"main", {F::kMainSamples + F::kFailedSamples, (F::kMainSamples + F::kFailedSamples) * period}},
                {"worker-1", {F::kWorkerSamples, F::kWorkerSamples * period}},
                {"gc-thread", {F::kGcSamples, F::kGcSamples * period}}}));
  // thread.id: the Java thread id; the OS thread id of a thread without one.
  EXPECT_EQ(otlp.totalsBy(profile, "thread.id"),
            (std::map<std::string, OtlpTotals>{
                {"1", {F::kMainSamples + F::kFailedSamples, (F::kMainSamples + F::kFailedSamples) * period}},
                {"21", {F::kWorkerSamples, F::kWorkerSamples * period}},
                {"1003", {F::kGcSamples, F::kGcSamples * period}}}));
  EXPECT_EQ(profile.period(), period);
  EXPECT_EQ(otlp.string(profile.period_type().type_strindex()), "cpu");

  // Each sample keeps its own time: main's Work.hot samples were taken 8 ms apart.
  const std::vector<std::string> hot = {"Work.hot(int)", "Work.compute(int)", "Work.main(String[])"};
  std::vector<uint64_t> times;
  for (const OtlpSample& sample : profile.samples()) {
    if (otlp.frames(sample.stack_index()) != hot) continue;
    times.assign(sample.timestamps_unix_nano().begin(), sample.timestamps_unix_nano().end());
  }
  ASSERT_EQ(times.size(), F::kMainSamples);
  std::sort(times.begin(), times.end());
  for (size_t i = 1; i < times.size(); ++i) EXPECT_EQ(times[i] - times[i - 1], 8'000'000u) << i;
  // Work.hot was inlined into Work.compute: both are lines of one location, with their line numbers.
  const auto& dictionary = otlp.request().dictionary();
  int inlined = 0;
  for (const auto& location : dictionary.location_table()) {
    if (location.lines_size() != 2) continue;
    ++inlined;
    EXPECT_EQ(otlp.string(dictionary.function_table(location.lines(0).function_index()).name_strindex()),
              "Work.hot(int)");
    EXPECT_EQ(location.lines(0).line(), 12);
    EXPECT_EQ(location.lines(1).line(), 20);
  }
  EXPECT_EQ(inlined, 1);
}

TEST_F(ConvertOtlp, DictionaryTablesStartWithTheirEmptyEntry) {
  const std::string path = dir_.file("mixed.jfr");
  writeMixedRecording(path);
  const std::string out = dir_.file("mixed.otlp.pb");
  convertToOtlp(path, out);
  OtlpRequestReader otlp(out);
  const auto& dictionary = otlp.request().dictionary();
  ASSERT_GT(dictionary.string_table_size(), 1);
  EXPECT_EQ(dictionary.string_table(0), "");
  // Entry 0 of each table is there and empty, the recording's links included, of which it has none.
  auto expectEmptyFirst = [](const auto& table) {
    ASSERT_GE(table.size(), 1);
    EXPECT_EQ(table.Get(0).ByteSizeLong(), 0u);
  };
  expectEmptyFirst(dictionary.mapping_table());
  expectEmptyFirst(dictionary.location_table());
  expectEmptyFirst(dictionary.function_table());
  expectEmptyFirst(dictionary.link_table());
  expectEmptyFirst(dictionary.attribute_table());
  expectEmptyFirst(dictionary.stack_table());
  // Native libraries are mappings: libc.so.6's memcpy is in one.
  bool libc = false;
  for (const auto& mapping : dictionary.mapping_table()) {
    libc = libc || otlp.string(mapping.filename_strindex()) == "libc.so.6";
  }
  EXPECT_TRUE(libc);
}

TEST_F(ConvertOtlp, EveryKindOfTheRecordingIsAProfileOfItsOwn) {
  using F = OffCpuRecordingFacts;
  const std::string path = dir_.file("offcpu.jfr");
  writeOffCpuRecording(path);
  const std::string out = dir_.file("offcpu.otlp.pb");
  const std::string report = convertToOtlp(path, out);
  EXPECT_NE(report.find("(50 jdk.CPUTimeSample samples, 2 threads; 11 jfrbpf.OffCPUSample samples, 3.10 s of "
                        "off-CPU time, 3 threads)"),
            std::string::npos)
      << report;

  OtlpRequestReader otlp(out);
  ASSERT_EQ(otlp.profiles().size(), 2);
  expectSameAsModel(otlp, 0, modelOf(path, convert::TimeKind::kCpu));
  expectSameAsModel(otlp, 1, modelOf(path, convert::TimeKind::kOffCpu));
  const OtlpProfile& offCpu = otlp.profile(1);
  EXPECT_EQ(otlp.sampleType(offCpu), "off_cpu/nanoseconds");
  EXPECT_EQ(otlp.totals(offCpu), (OtlpTotals{F::kOffCpuSamples, F::kOffCpu}));
  EXPECT_EQ(otlp.totalsBy(offCpu, "thread.name"),
            (std::map<std::string, OtlpTotals>{{"main", {F::kMainSleeps, F::kMainOffCpu}},
                                               {"worker-1", {6, F::kWorkerOffCpu}},
                                               {"gc-thread", {1, F::kGcOffCpu}}}));
  EXPECT_EQ(otlp.totalsBy(offCpu, std::string(convert::kOtlpOffCpuStateKey)),
            (std::map<std::string, OtlpTotals>{{"sleeping", {F::kMainSleeps + 3, F::kMainOffCpu + F::kWorkerWait}},
                                               {"preempted", {2, F::kWorkerPreempted}},
                                               {"uninterruptible", {1, F::kWorkerIo}},
                                               {"unknown", {1, F::kGcOffCpu}}}));
  EXPECT_EQ(otlp.totalsBy(otlp.profile(0), "thread.name"),
            (std::map<std::string, OtlpTotals>{{"main", {F::kMainCpuSamples, F::kMainCpu}},
                                               {"worker-1", {F::kWorkerCpuSamples, F::kWorkerCpu}}}));

  // --off-cpu: that kind alone, in a file named after it.
  const CliResult alone = runCli({"convert", path, "--to", "otlp", "--off-cpu"});
  ASSERT_EQ(alone.exitCode, 0) << alone.output;
  OtlpRequestReader offCpuOnly(dir_.file("offcpu-off-cpu.otlp.pb"));
  ASSERT_EQ(offCpuOnly.profiles().size(), 1);
  expectSameAsModel(offCpuOnly, 0, modelOf(path, convert::TimeKind::kOffCpu));
}

TEST_F(ConvertOtlp, AllocationProfileWeighsBytes) {
  using F = AllocationRecordingFacts;
  const std::string path = dir_.file("alloc.jfr");
  writeAllocationRecording(path);
  const std::string out = dir_.file("alloc.otlp.pb");
  convertToOtlp(path, out, {"--alloc"});
  OtlpRequestReader otlp(out);
  ASSERT_EQ(otlp.profiles().size(), 1);
  expectSameAsModel(otlp, 0, modelOf(path, convert::TimeKind::kAlloc));
  EXPECT_EQ(otlp.sampleType(otlp.profile(0)), "alloc_space/bytes");
  EXPECT_EQ(otlp.totalsBy(otlp.profile(0), "thread.name"),
            (std::map<std::string, OtlpTotals>{{"main", {F::kMainSamples, F::kMain}},
                                               {"worker-1", {F::kWorkerSamples, F::kWorker}}}));
}

TEST_F(ConvertOtlp, LockProfileOfTheJdksOwnRecording) {
  const std::string path = std::string(kSourceDir) + "/tests/testdata/view/seeds/locks.jfr";
  const std::string out = dir_.file("locks.otlp.pb");
  convertToOtlp(path, out, {"--lock"});
  OtlpRequestReader otlp(out);
  ASSERT_EQ(otlp.profiles().size(), 1);
  const convert::Profile model = modelOf(path, convert::TimeKind::kLock);
  EXPECT_EQ(model.totalSamples, 78u);  // 18 blocked, 40 waiting, 20 parked
  expectSameAsModel(otlp, 0, model);
  EXPECT_EQ(otlp.sampleType(otlp.profile(0)), "delay/nanoseconds");
}

TEST_F(ConvertOtlp, TracesAreLinksAndTheProcessIsTheResource) {
  using F = OtelContextRecordingFacts;
  const std::string path = dir_.file("checkout.jfr");
  writeOtelContextRecording(path);
  const std::string out = dir_.file("checkout.otlp.pb");
  convertToOtlp(path, out);
  OtlpRequestReader otlp(out);
  ASSERT_EQ(otlp.profiles().size(), 1);
  expectSameAsModel(otlp, 0, modelOf(path, convert::TimeKind::kCpu));

  EXPECT_EQ(otlp.resourceAttribute("service.name"), F::kServiceName);
  EXPECT_EQ(otlp.resourceAttribute("process.pid"), "int:" + std::to_string(F::kPid));
  EXPECT_EQ(otlp.resourceAttribute("host.name"), "node-7");
  EXPECT_EQ(otlp.resourceAttribute("container.id"), "3f2a9c41d0e5");
  EXPECT_EQ(otlp.resourceAttribute("process.executable.name"), "java");
  EXPECT_EQ(otlp.resourceAttribute("service.version"), "1.4.2");
  EXPECT_EQ(otlp.resourceAttribute("process.command_args"), "[java, -jar, checkout.jar]");
  EXPECT_EQ(otlp.request().resource_profiles(0).resource().attributes_size(), 7);
  EXPECT_EQ(otlp.request().resource_profiles(0).scope_profiles(0).scope().name(), "jfrbpf");

  // Events per link (trace/span bytes) and per route.
  const auto& links = otlp.request().dictionary().link_table();
  std::map<std::pair<std::string, std::string>, uint64_t> byLink;
  std::map<std::string, uint64_t> byRoute;
  for (const OtlpSample& sample : otlp.profile(0).samples()) {
    const auto& link = links.Get(sample.link_index());
    const auto events = static_cast<uint64_t>(sample.timestamps_unix_nano_size());
    byLink[{link.trace_id(), link.span_id()}] += events;
    byRoute[otlp.attribute(sample, "http.route") + " " + otlp.attribute(sample, "http.method")] += events;
    EXPECT_EQ(sample.link_index() == 0, otlp.attribute(sample, "http.route").empty());
  }
  const std::string traceA = idBytes(F::kTraceAHi, F::kTraceALo), traceB = idBytes(F::kTraceBHi, F::kTraceBLo);
  EXPECT_EQ(byLink, (std::map<std::pair<std::string, std::string>, uint64_t>{
                        {{"", ""}, F::kNoContextSamples},
                        {{traceA, idBytes(F::kSpanA1)}, F::kA1Samples},
                        {{traceA, idBytes(F::kSpanA2)}, F::kA2Samples},
                        {{traceB, idBytes(F::kSpanB1)}, F::kB1Samples}}));
  EXPECT_EQ(byRoute, (std::map<std::string, uint64_t>{{" ", F::kNoContextSamples},
                                                      {"/checkout POST", F::kA1Samples + F::kA2Samples},
                                                      {"/cart ", F::kB1Samples}}));
}

TEST_F(ConvertOtlp, ServiceIsTheMainClassWithoutAPublishedContext) {
  using F = JvmInformationRecordingFacts;
  const std::string path = dir_.file("main.jfr");
  writeJvmInformationRecording(path);
  const std::string out = dir_.file("main.otlp.pb");
  convertToOtlp(path, out);
  OtlpRequestReader otlp(out);
  EXPECT_EQ(otlp.resourceAttribute("service.name"), F::kMainClass);
  EXPECT_EQ(otlp.resourceAttribute("process.pid"), "int:" + std::to_string(F::kPid));
  EXPECT_EQ(otlp.request().resource_profiles(0).resource().attributes_size(), 2);
  ASSERT_EQ(otlp.profiles().size(), 1);
  EXPECT_EQ(otlp.totals(otlp.profile(0)).events, F::kSamples);
}

// `record -p A,B -o one.jfr`: the samples do not say whose they are, so the resource names no process.
TEST_F(ConvertOtlp, AFileOfSeveralProcessesNamesNone) {
  const std::string path = dir_.file("two.jfr");
  {
    jfr::RecordingOptions options;
    options.path = path;
    jfr::Recording out(options);
    const jfr::StackFrame frame{javaMethod(out, "Work", "run", "()V"), 1, 0, jfr::FrameType::Interpreted};
    const jfr::Ticks now = jfr::Recording::now();
    out.processContext(now, 101, "checkout", "service.name=checkout", "", "");
    out.processContext(now, 102, "cart", "service.name=cart", "", "");
    out.cpuTimeSample(now, {&frame, 1}, false, out.internThread({"main", 101, "main", 1, false}), false, 10'000'000,
                      false);
    out.close();
  }
  const std::string out = dir_.file("two.otlp.pb");
  convertToOtlp(path, out);
  OtlpRequestReader otlp(out);
  EXPECT_EQ(otlp.request().resource_profiles(0).resource().attributes_size(), 0);
  ASSERT_EQ(otlp.profiles().size(), 1);
  EXPECT_EQ(otlp.totals(otlp.profile(0)), (OtlpTotals{1, 10'000'000}));
}

// The resource text of jfrbpf.ProcessContext: ", " separates attributes only where a key and "=" follow.
TEST(ConvertOtlpResource, SplitsAtKeysOnly) {
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(convert::splitResourceText("service.name=a, process.command_args=[java, -jar, x.jar], k=v=w, e="),
            (Pairs{{"service.name", "a"}, {"process.command_args", "[java, -jar, x.jar]"}, {"k", "v=w"}, {"e", ""}}));
  EXPECT_EQ(convert::splitResourceText(""), Pairs{});
  EXPECT_EQ(convert::splitResourceText("no key here"), Pairs{});
}

TEST_F(ConvertOtlp, ProtocDecodesTheRequest) {
  const std::string path = dir_.file("mixed.jfr");
  writeMixedRecording(path);
  // The default name: the recording's with .otlp.pb.
  const CliResult converted = runCli({"convert", path, "--to", "otlp"});
  ASSERT_EQ(converted.exitCode, 0) << converted.output;
  const std::string out = dir_.file("mixed.otlp.pb");
  ASSERT_TRUE(std::filesystem::exists(out)) << converted.output;
  const std::string protos = std::string(kSourceDir) + "/formats/otlp/proto";
  RunResult decoded = run({"sh", "-c",
                           std::string("'") + JFRBPF_PROTOC +
                               "' --decode=opentelemetry.proto.collector.profiles.v1development."
                               "ExportProfilesServiceRequest -I '" + protos + "' '" + protos +
                               "/opentelemetry/proto/collector/profiles/v1development/profiles_service.proto' < '" +
                               out + "'"});
  ASSERT_EQ(decoded.exitCode, 0) << decoded.output;
  EXPECT_NE(decoded.output.find("string_table: \"Work.hot(int)\""), std::string::npos)
      << decoded.output.substr(0, 3000);
  EXPECT_NE(decoded.output.find("timestamps_unix_nano: "), std::string::npos);
  EXPECT_NE(decoded.output.find("name: \"jfrbpf\""), std::string::npos);
}

TEST_F(ConvertOtlp, FormatNamesAndOutputPaths) {
  EXPECT_EQ(convert::parseFormat("otlp"), convert::Format::kOtlp);
  EXPECT_EQ(convert::defaultOutputPath("/x/app.jfr", convert::Format::kOtlp), "/x/app.otlp.pb");
  EXPECT_EQ(convert::defaultOutputPath("app.jfr", convert::Format::kOtlp, convert::TimeKind::kAlloc),
            "app-alloc.otlp.pb");
  expectCliError({"convert", "app.jfr", "--to", "otel"}, 2, "expected collapsed, html, pprof or otlp");
}

}  // namespace
}  // namespace jfrbpf::test
