// Every event type the writer produces, read back by JDK 17's `jfr print --json`, `jfr print`, `jfr summary`
// and `jfr metadata`, with assertions on the values the JDK decodes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "formats/jfr/writer/recording.h"
#include "formats/jfr/writer/type_ids.h"
#include "tests/jfr/chunk_headers.h"
#include "tests/jfr/jdk_tools.h"
#include "tests/jfr/json.h"
#include "tests/support/durations.h"

namespace jfrbpf::jfr {
namespace {

using test::Json;

using ::jfrbpf::test::kMs;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
const std::string kUnicodeClass = "com/example/Ünïcödé$Inner";
const std::string kUnicodeMethod = "grüße";
const std::string kNoteMessage = "attach refused: Java frames unavailable, native frames only (naïve ☃ 日本)";

int processorLines() {
  std::string cpuinfo = test::readFile("/proc/cpuinfo");
  int count = 0;
  for (size_t at = 0; (at = cpuinfo.find("processor", at)) != std::string::npos; ++at)
    if (at == 0 || cpuinfo[at - 1] == '\n') ++count;
  return count;
}

class JfrWriterJdk17 : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (access((test::jdk17Home() + "/bin/jfr").c_str(), X_OK) != 0) return;
    dir = std::make_unique<test::TempDir>();
    path = dir->file("all-events.jfr");
    write();
    header = test::chunkHeaders(test::readFile(path)).at(0);
    auto json = test::runJfr(test::jdk17Home(), {"print", "--json", "--stack-depth", "64", path});
    printExit = json.exitCode;
    printErrors = json.err;
    document = std::make_unique<Json>(Json::parse(json.out));
    text = test::runJfr(test::jdk17Home(), {"print", "--stack-depth", "64", path});
    summary = test::runJfr(test::jdk17Home(), {"summary", path});
    metadata = test::runJfr(test::jdk17Home(), {"metadata", path});
  }
  static void TearDownTestSuite() {
    document.reset();
    dir.reset();
  }
  void SetUp() override {
    if (!dir) GTEST_SKIP() << "no jfr tool in " << test::jdk17Home();
  }

  static void write() {
    RecordingOptions options{.path = path, .name = "writer-test"};
    options.settings = {{"jdk.CPUTimeSample", "enabled", "true"},
                        {"jdk.CPUTimeSample", "throttle", "10 ms"},
                        {"jdk.MethodTiming", "filter", "com.example.Work::compute"}};
    options.jvm = JvmInformation{"OpenJDK 64-Bit Server VM", "17.0.9+9",        "-Xmx1g", "",
                                 "com.example.Work 3",       1'700'000'000'000, 4242};
    Recording r(options);
    ClassId work = r.internClass("com/example/Work", 0x1);
    MethodId compute = r.internMethod(work, "compute", "(I)J", 0x8);
    MethodId main = r.internMethod(work, "main", "([Ljava/lang/String;)V", 0x9);
    ClassId unicode = r.internClass(kUnicodeClass, 0x1);
    MethodId greet = r.internMethod(unicode, kUnicodeMethod, "(Ljava/lang/String;I)V", 0x2);
    ClassId libc = r.internClass("libc.so.6");
    MethodId memcpy = r.internMethod(libc, "__memcpy_avx_unaligned", kNativeMethodDescriptor);
    ClassId kernel = r.internClass("kernel");
    MethodId syscall = r.internMethod(kernel, "do_syscall_64", kNativeMethodDescriptor);

    ThreadId worker = r.internThread({"worker-1", 4242, "worker-1", 17});
    ThreadId gc = r.internThread({"GC Thread#0", 4243, "", 0});
    ThreadId pool = r.internThread({"pool-1", 4244, "", 0});
    r.updateThread(pool, {"pool-1", 4244, "pool-1-thread-1", 23});
    ThreadId carrier = r.internThread({"", 0, "virtual-1", 99, true});

    t0 = Recording::now();
    std::vector<StackFrame> mixed = {{syscall, -1, -1, FrameType::Native},
                                     {memcpy, -1, -1, FrameType::Native},
                                     {greet, 12, 5, FrameType::Inlined},
                                     {compute, 2, 28, FrameType::JitCompiled},
                                     {main, 5, 21, FrameType::Interpreted}};
    std::vector<StackFrame> deep;
    for (int i = 0; i < 64; ++i) deep.push_back({compute, 100 + i, i, FrameType::JitCompiled});
    std::vector<StackFrame> invalid = {{999'999, 1, 1, FrameType::JitCompiled}};

    r.cpuTimeSample(t0 + 1 * kMs, mixed, false, worker, false, 10 * kMs, false);
    r.cpuTimeSample(t0 + 2 * kMs, mixed, false, pool, false, 20 * kMs, true);
    r.cpuTimeSample(t0 + 3 * kMs, {}, false, gc, true, 10 * kMs, false);
    r.cpuTimeSample(t0 + 4 * kMs, deep, true, carrier, false, 10 * kMs, false);
    r.cpuTimeSample(t0 + 5 * kMs, invalid, false, 12345, false, 10 * kMs, false);
    r.cpuTimeSamplesLost(t0 + 6 * kMs, 7, worker);
    r.methodTiming(t0 + 7 * kMs, compute, 56303, 50300, 53100, 845000);
    r.methodTiming(t0 + 7 * kMs, main, 0, kMin, kMin, kMin);
    r.methodTrace(t0 + 8 * kMs, 2'500'000, worker, std::span(mixed).subspan(4), false, compute);
    r.sampleLoss(t0 + 9 * kMs, 0, "ring buffer full", 42);
    r.sampleLoss(t0 + 10 * kMs, gc, "kernel throttling", 5);
    r.note(t0 + 11 * kMs, "warning", kNoteMessage);
    r.offCpuSample(t0 + 12 * kMs, 3'000'000, worker, mixed, false, 4'000'000, "uninterruptible", 250'000);
    r.offCpuSamplesLost(t0 + 13 * kMs, pool, 3, 9'000'000);
    r.objectAllocationSample(t0 + 14 * kMs, worker, std::span(mixed).subspan(2), false, r.internClass("[B"), 1'048'576);
    r.close();
    stats = r.stats();
  }

  static std::vector<const Json*> events(std::string_view type) { return test::eventsOfType(*document, type); }
  // The instant the JDK computes for a tick value: header start + (ticks - start ticks) at 1e9 ticks/s.
  static int64_t instantOf(Ticks ticks) { return header.startNanos + (ticks - header.startTicks); }

  static void expectFrame(const Json& frame, std::string_view cls, std::string_view method, std::string_view descriptor,
                          int line, int bci, std::string_view type) {
    EXPECT_EQ(frame["method"]["type"]["name"].string(), cls);
    EXPECT_EQ(frame["method"]["name"].string(), method);
    EXPECT_EQ(frame["method"]["descriptor"].string(), descriptor);
    EXPECT_EQ(frame["lineNumber"].integer(), line);
    EXPECT_EQ(frame["bytecodeIndex"].integer(), bci);
    EXPECT_EQ(frame["type"].string(), type);
  }

  static inline std::unique_ptr<test::TempDir> dir;
  static inline std::string path;
  static inline Ticks t0 = 0;
  static inline Recording::Stats stats{};
  static inline test::ChunkHeader header{};
  static inline int printExit = -1;
  static inline std::string printErrors;
  static inline std::unique_ptr<Json> document;
  static inline test::ToolResult text, summary, metadata;
};

TEST_F(JfrWriterJdk17, ToolsAcceptTheFile) {
  EXPECT_EQ(printExit, 0) << printErrors;
  EXPECT_EQ(text.exitCode, 0) << text.err;
  EXPECT_EQ(summary.exitCode, 0) << summary.err;
  EXPECT_EQ(metadata.exitCode, 0) << metadata.err;
  EXPECT_EQ(printErrors.find("Exception"), std::string::npos) << printErrors;
  EXPECT_EQ(text.err.find("Exception"), std::string::npos) << text.err;
  EXPECT_EQ(stats.events, 15u);
  EXPECT_EQ(stats.chunks, 1u);
  EXPECT_EQ(stats.bytesWritten, test::readFile(path).size());
  EXPECT_EQ(stats.stackTraces, 5u);  // mixed, deep, invalid, the trace's caller stack, the allocation's
}

TEST_F(JfrWriterJdk17, SummaryCountsEveryEventType) {
  auto counts = test::summaryCounts(summary.out);
  EXPECT_EQ(test::summaryChunks(summary.out), 1);
  EXPECT_NE(summary.out.find("Version: 2.1"), std::string::npos);
  EXPECT_EQ(counts["jdk.CPUTimeSample"], 5);
  EXPECT_EQ(counts["jdk.CPUTimeSamplesLost"], 1);
  EXPECT_EQ(counts["jdk.MethodTiming"], 2);
  EXPECT_EQ(counts["jdk.MethodTrace"], 1);
  EXPECT_EQ(counts["jfrbpf.SampleLoss"], 2);
  EXPECT_EQ(counts["jfrbpf.Note"], 1);
  EXPECT_EQ(counts["jfrbpf.OffCPUSample"], 1);
  EXPECT_EQ(counts["jfrbpf.OffCPUSamplesLost"], 1);
  EXPECT_EQ(counts["jdk.ActiveRecording"], 1);
  EXPECT_EQ(counts["jdk.OSInformation"], 1);
  EXPECT_EQ(counts["jdk.CPUInformation"], 1);
  EXPECT_EQ(counts["jdk.JVMInformation"], 1);
  EXPECT_EQ(counts["jdk.ObjectAllocationSample"], 1);
  EXPECT_EQ(counts["jdk.ActiveSetting"], 3 + 8);  // the caller's 3 + enabled=true for the 8 other types in use
  EXPECT_EQ(counts["jdk.CheckPoint"], 1);
  EXPECT_EQ(counts["jdk.Metadata"], 1);
}

TEST_F(JfrWriterJdk17, MixedStackResolvesEveryFrame) {
  auto samples = events("jdk.CPUTimeSample");
  ASSERT_EQ(samples.size(), 5u);
  const Json& s = *samples[0];
  EXPECT_EQ(test::isoInstantNanos(s["startTime"].string()), instantOf(t0 + 1 * kMs));
  const Json& trace = s["stackTrace"];
  EXPECT_FALSE(trace["truncated"].boolean());
  ASSERT_EQ(trace["frames"].size(), 5u);
  expectFrame(trace["frames"][0], "kernel", "do_syscall_64", "()V", -1, -1, "Native");
  expectFrame(trace["frames"][1], "libc.so.6", "__memcpy_avx_unaligned", "()V", -1, -1, "Native");
  expectFrame(trace["frames"][2], kUnicodeClass, kUnicodeMethod, "(Ljava/lang/String;I)V", 12, 5, "Inlined");
  expectFrame(trace["frames"][3], "com/example/Work", "compute", "(I)J", 2, 28, "JIT compiled");
  expectFrame(trace["frames"][4], "com/example/Work", "main", "([Ljava/lang/String;)V", 5, 21, "Interpreted");

  const Json& compute = trace["frames"][3]["method"];
  EXPECT_EQ(compute["modifiers"].integer(), 0x8);
  EXPECT_FALSE(compute["hidden"].boolean());
  EXPECT_EQ(compute["type"]["modifiers"].integer(), 0x1);
  EXPECT_EQ(compute["type"]["package"]["name"].string(), "com/example");
  EXPECT_TRUE(compute["type"]["classLoader"].isNull());
  EXPECT_TRUE(trace["frames"][1]["method"]["type"]["package"].isNull()) << "libraries have no package";

  const Json& thread = s["eventThread"];
  EXPECT_EQ(thread["osName"].string(), "worker-1");
  EXPECT_EQ(thread["osThreadId"].integer(), 4242);
  EXPECT_EQ(thread["javaName"].string(), "worker-1");
  EXPECT_EQ(thread["javaThreadId"].integer(), 17);
  EXPECT_TRUE(thread["group"].isNull());
  EXPECT_FALSE(thread["virtual"].boolean());
  EXPECT_FALSE(s["failed"].boolean());
  EXPECT_EQ(test::isoDurationNanos(s["samplingPeriod"].string()), 10 * kMs);
  EXPECT_FALSE(s["biased"].boolean());
}

TEST_F(JfrWriterJdk17, SampleFlagsThreadsAndFailures) {
  auto samples = events("jdk.CPUTimeSample");
  ASSERT_EQ(samples.size(), 5u);

  const Json& overrun = *samples[1];
  EXPECT_EQ(overrun["eventThread"]["javaName"].string(), "pool-1-thread-1") << "updateThread applies";
  EXPECT_EQ(overrun["eventThread"]["javaThreadId"].integer(), 23);
  EXPECT_EQ(test::isoDurationNanos(overrun["samplingPeriod"].string()), 20 * kMs);
  EXPECT_TRUE(overrun["biased"].boolean());
  EXPECT_EQ(overrun["stackTrace"]["frames"].size(), 5u) << "same stack, deduplicated, resolves again";

  const Json& failed = *samples[2];
  EXPECT_TRUE(failed["failed"].boolean());
  EXPECT_TRUE(failed["stackTrace"].isNull());
  EXPECT_EQ(failed["eventThread"]["osName"].string(), "GC Thread#0");
  EXPECT_TRUE(failed["eventThread"]["javaName"].isNull()) << "not a Java thread";
  EXPECT_EQ(failed["eventThread"]["javaThreadId"].integer(), 0);

  const Json& deep = *samples[3];
  EXPECT_TRUE(deep["stackTrace"]["truncated"].boolean());
  ASSERT_EQ(deep["stackTrace"]["frames"].size(), 64u);
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(deep["stackTrace"]["frames"][i]["lineNumber"].integer(), 100 + static_cast<int64_t>(i));
    EXPECT_EQ(deep["stackTrace"]["frames"][i]["bytecodeIndex"].integer(), static_cast<int64_t>(i));
  }
  EXPECT_TRUE(deep["eventThread"]["osName"].isNull()) << "virtual thread";
  EXPECT_EQ(deep["eventThread"]["osThreadId"].integer(), 0);
  EXPECT_EQ(deep["eventThread"]["javaName"].string(), "virtual-1");
  EXPECT_TRUE(deep["eventThread"]["virtual"].boolean());

  const Json& invalid = *samples[4];
  EXPECT_TRUE(invalid["eventThread"].isNull()) << "unknown ThreadId is written as no thread";
  expectFrame(invalid["stackTrace"]["frames"][0], "[unknown]", "[unknown]", "()V", 1, 1, "JIT compiled");
}

TEST_F(JfrWriterJdk17, LostSamplesTimingAndTrace) {
  auto lost = events("jdk.CPUTimeSamplesLost");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ((*lost[0])["lostSamples"].integer(), 7);
  EXPECT_EQ((*lost[0])["eventThread"]["javaThreadId"].integer(), 17);
  EXPECT_EQ(test::isoInstantNanos((*lost[0])["startTime"].string()), instantOf(t0 + 6 * kMs));

  auto timings = events("jdk.MethodTiming");
  ASSERT_EQ(timings.size(), 2u);
  const Json& timing = *timings[0];
  EXPECT_EQ(timing["method"]["name"].string(), "compute");
  EXPECT_EQ(timing["method"]["type"]["name"].string(), "com/example/Work");
  EXPECT_EQ(timing["invocations"].integer(), 56303);
  EXPECT_EQ(test::isoDurationNanos(timing["minimum"].string()), 50300);
  EXPECT_EQ(test::isoDurationNanos(timing["average"].string()), 53100);
  EXPECT_EQ(test::isoDurationNanos(timing["maximum"].string()), 845000);
  EXPECT_EQ((*timings[1])["method"]["name"].string(), "main");
  EXPECT_EQ((*timings[1])["invocations"].integer(), 0);

  auto traces = events("jdk.MethodTrace");
  ASSERT_EQ(traces.size(), 1u);
  const Json& trace = *traces[0];
  EXPECT_EQ(test::isoInstantNanos(trace["startTime"].string()), instantOf(t0 + 8 * kMs));
  EXPECT_EQ(test::isoDurationNanos(trace["duration"].string()), 2'500'000);
  EXPECT_EQ(trace["method"]["name"].string(), "compute");
  EXPECT_EQ(trace["eventThread"]["osThreadId"].integer(), 4242);
  ASSERT_EQ(trace["stackTrace"]["frames"].size(), 1u);
  expectFrame(trace["stackTrace"]["frames"][0], "com/example/Work", "main", "([Ljava/lang/String;)V", 5, 21,
              "Interpreted");
}

TEST_F(JfrWriterJdk17, AllocationSampleNamesItsClassAndWeight) {
  auto samples = events("jdk.ObjectAllocationSample");
  ASSERT_EQ(samples.size(), 1u);
  const Json& sample = *samples[0];
  EXPECT_EQ(test::isoInstantNanos(sample["startTime"].string()), instantOf(t0 + 14 * kMs));
  EXPECT_EQ(sample["objectClass"]["name"].string(), "[B");
  EXPECT_EQ(sample["weight"].integer(), 1'048'576);
  EXPECT_EQ(sample["eventThread"]["osThreadId"].integer(), 4242);
  ASSERT_EQ(sample["stackTrace"]["frames"].size(), 3u);
  expectFrame(sample["stackTrace"]["frames"][0], kUnicodeClass, kUnicodeMethod, "(Ljava/lang/String;I)V", 12, 5,
              "Inlined");
}

TEST_F(JfrWriterJdk17, JfrbpfEvents) {
  auto losses = events("jfrbpf.SampleLoss");
  ASSERT_EQ(losses.size(), 2u);
  EXPECT_TRUE((*losses[0])["eventThread"].isNull());
  EXPECT_EQ((*losses[0])["cause"].string(), "ring buffer full");
  EXPECT_EQ((*losses[0])["lostSamples"].integer(), 42);
  EXPECT_EQ((*losses[1])["eventThread"]["osName"].string(), "GC Thread#0");
  EXPECT_EQ((*losses[1])["cause"].string(), "kernel throttling");
  EXPECT_EQ((*losses[1])["lostSamples"].integer(), 5);

  auto notes = events("jfrbpf.Note");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ((*notes[0])["severity"].string(), "warning");
  EXPECT_EQ((*notes[0])["message"].string(), kNoteMessage) << "UTF-8 survives";
  EXPECT_EQ(test::isoInstantNanos((*notes[0])["startTime"].string()), instantOf(t0 + 11 * kMs));

  auto offCpu = events("jfrbpf.OffCPUSample");
  ASSERT_EQ(offCpu.size(), 1u);
  const Json& wait = *offCpu[0];
  EXPECT_EQ(test::isoInstantNanos(wait["startTime"].string()), instantOf(t0 + 12 * kMs));
  EXPECT_EQ(test::isoDurationNanos(wait["duration"].string()), 3'000'000);
  EXPECT_EQ(test::isoDurationNanos(wait["weight"].string()), 4'000'000);
  EXPECT_EQ(test::isoDurationNanos(wait["runDelay"].string()), 250'000);
  EXPECT_EQ(wait["state"].string(), "uninterruptible");
  EXPECT_EQ(wait["eventThread"]["osThreadId"].integer(), 4242);
  ASSERT_EQ(wait["stackTrace"]["frames"].size(), 5u);
  EXPECT_EQ(wait["stackTrace"]["frames"][0]["method"]["name"].string(), "do_syscall_64");

  auto offCpuLost = events("jfrbpf.OffCPUSamplesLost");
  ASSERT_EQ(offCpuLost.size(), 1u);
  EXPECT_EQ((*offCpuLost[0])["lostSamples"].integer(), 3);
  EXPECT_EQ(test::isoDurationNanos((*offCpuLost[0])["lostTime"].string()), 9'000'000);
  EXPECT_EQ((*offCpuLost[0])["eventThread"]["osThreadId"].integer(), 4244);
}

TEST_F(JfrWriterJdk17, RecordingSettingsAndHostDescription) {
  auto recordings = events("jdk.ActiveRecording");
  ASSERT_EQ(recordings.size(), 1u);
  EXPECT_EQ((*recordings[0])["name"].string(), "writer-test");
  EXPECT_EQ((*recordings[0])["destination"].string(), path);
  EXPECT_TRUE((*recordings[0])["disk"].boolean());

  std::map<std::pair<int64_t, std::string>, std::string> settings;
  for (const Json* s : events("jdk.ActiveSetting"))
    settings[{(*s)["id"].integer(), (*s)["name"].string()}] = (*s)["value"].string();
  auto setting = [&](TypeId type, const char* name) {
    auto it = settings.find({static_cast<int64_t>(type), name});
    return it == settings.end() ? std::string("<absent>") : it->second;
  };
  EXPECT_EQ(setting(kCpuTimeSampleEvent, "enabled"), "true");
  EXPECT_EQ(setting(kCpuTimeSampleEvent, "throttle"), "10 ms");
  EXPECT_EQ(setting(kMethodTimingEvent, "filter"), "com.example.Work::compute");
  EXPECT_EQ(setting(kMethodTimingEvent, "enabled"), "true") << "types in use default to enabled";
  EXPECT_EQ(setting(kMethodTraceEvent, "enabled"), "true");
  EXPECT_EQ(setting(kSampleLossEvent, "enabled"), "true");
  EXPECT_EQ(setting(kOffCpuSampleEvent, "enabled"), "true");
  EXPECT_EQ(setting(kJvmInformationEvent, "enabled"), "<absent>") << "only event types the caller recorded";
  EXPECT_EQ(setting(kObjectAllocationSampleEvent, "enabled"), "true");
  EXPECT_EQ(settings.size(), 11u);

  auto os = events("jdk.OSInformation");
  ASSERT_EQ(os.size(), 1u);
  EXPECT_NE((*os[0])["osVersion"].string().find("uname: Linux"), std::string::npos);
  auto cpu = events("jdk.CPUInformation");
  ASSERT_EQ(cpu.size(), 1u);
  EXPECT_FALSE((*cpu[0])["cpu"].string().empty());
  EXPECT_EQ((*cpu[0])["hwThreads"].integer(), processorLines());
  EXPECT_GE((*cpu[0])["cores"].integer(), 1);
  EXPECT_GE((*cpu[0])["sockets"].integer(), 1);

  auto jvm = events("jdk.JVMInformation");
  ASSERT_EQ(jvm.size(), 1u);
  EXPECT_EQ((*jvm[0])["jvmName"].string(), "OpenJDK 64-Bit Server VM");
  EXPECT_EQ((*jvm[0])["jvmVersion"].string(), "17.0.9+9");
  EXPECT_EQ((*jvm[0])["jvmArguments"].string(), "-Xmx1g");
  EXPECT_EQ((*jvm[0])["javaArguments"].string(), "com.example.Work 3");
  EXPECT_EQ(test::isoInstantNanos((*jvm[0])["jvmStartTime"].string()), 1'700'000'000'000 * kMs);
  EXPECT_EQ((*jvm[0])["pid"].integer(), 4242);
}

TEST_F(JfrWriterJdk17, PrettyPrintFormatsNativeAndJavaFrames) {
  EXPECT_NE(text.out.find("kernel.do_syscall_64()"), std::string::npos);
  EXPECT_NE(text.out.find("libc.so.6.__memcpy_avx_unaligned()"), std::string::npos);
  EXPECT_NE(text.out.find("com.example.Work.compute(int) line: 2"), std::string::npos);
  EXPECT_NE(text.out.find("com.example.Work.main(String[]) line: 5"), std::string::npos);
  EXPECT_NE(text.out.find("samplingPeriod = 10.0 ms"), std::string::npos) << "content types are declared";
  EXPECT_NE(text.out.find("duration = 2.50 ms"), std::string::npos);
}

TEST_F(JfrWriterJdk17, MetadataDeclaresJdk25Layouts) {
  auto blocks = test::metadataBlocks(metadata.out);
  const std::string& sample = blocks["jdk.CPUTimeSample"];
  EXPECT_NE(sample.find("@Experimental"), std::string::npos);
  EXPECT_NE(sample.find("@Category({\"Java Virtual Machine\", \"Profiling\"})"), std::string::npos);
  EXPECT_NE(sample.find("@Label(\"CPU Time Sample\")"), std::string::npos);
  size_t stack = sample.find("StackTrace stackTrace;"), thread = sample.find("Thread eventThread;"),
         failed = sample.find("boolean failed;"), period = sample.find("long samplingPeriod;"),
         biased = sample.find("boolean biased;");
  ASSERT_NE(biased, std::string::npos) << sample;
  EXPECT_TRUE(stack < thread && thread < failed && failed < period && period < biased) << sample;
  EXPECT_NE(sample.find("@Unsigned\n  @Timespan(\"TICKS\")\n  @Label(\"CPU Time Sampling Period\")"),
            std::string::npos);

  EXPECT_NE(blocks["jdk.CPUTimeSamplesLost"].find("@Experimental"), std::string::npos);
  EXPECT_EQ(blocks["jdk.MethodTiming"].find("@Experimental"), std::string::npos);
  EXPECT_EQ(blocks["jdk.MethodTrace"].find("@Experimental"), std::string::npos);
  EXPECT_NE(blocks["jdk.MethodTrace"].find("@Contextual"), std::string::npos);
  EXPECT_NE(blocks["jfrbpf.SampleLoss"].find("@Category(\"jfrbpf\")"), std::string::npos);
  EXPECT_NE(blocks["jfrbpf.SampleLoss"].find("String cause;"), std::string::npos);
  EXPECT_NE(blocks["jfrbpf.Note"].find("String message;"), std::string::npos);
  EXPECT_NE(blocks["jdk.types.StackFrame"].find("int lineNumber;"), std::string::npos);
  EXPECT_NE(blocks["java.lang.Thread"].find("long javaThreadId;"), std::string::npos);
}

}  // namespace
}  // namespace jfrbpf::jfr
