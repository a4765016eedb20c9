// What jfrbpf's samples carry of OpenTelemetry thread contexts (OTEP 4947): threads that switch context every
// 0.3 ms (tests/otel/context_switcher.c), with the variable in the program, in a library it links (general
// dynamic, TLSDESC) or in one it loads with dlopen, recorded at 10 ms and 1 ms. Each sample's frames say which
// context its thread was in: it must carry exactly that one, and none outside.
#include <gtest/gtest.h>

#include <signal.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>

#include "tests/jfr/jdk_tools.h"
#include "tests/record/bpf_test_support.h"
#include "tests/record/record_test_support.h"
#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;

constexpr int kThreads = 2;
constexpr int kContexts = 3;

struct Switcher {
  const char* name;      // the test's
  const char* program;   // in tests/otel
  const char* library;   // for the dlopen one, else null
};

void PrintTo(const Switcher& switcher, std::ostream* os) { *os << switcher.name; }

std::string otelBinary(const std::string& name) { return std::string(kBinaryDir) + "/tests/otel/" + name; }

// What context_switcher's thread t sets for context k.
EventContext expected(int t, int k) {
  EventContext context;
  context.traceIdHi = static_cast<uint64_t>(0x10 + t) << 56 | static_cast<uint64_t>(k) << 48 | 0x5a5a5a5a5a5aull;
  context.traceIdLo = 0x5a5a5a5a5a5a5a5aull;
  context.spanId = static_cast<uint64_t>(0x20 + t) << 56 | static_cast<uint64_t>(k) << 48 | 0x333333333333ull;
  context.traceFlags = k % 2 == 0 ? 1 : 0;
  context.attributes = "http.route=/route/" + std::to_string(k) + ", thread=t" + std::to_string(t);
  return context;
}

bool same(const EventContext& a, const EventContext& b) {
  return a.traceIdHi == b.traceIdHi && a.traceIdLo == b.traceIdLo && a.spanId == b.spanId &&
         a.traceFlags == b.traceFlags && a.attributes == b.attributes && a.notRead == b.notRead;
}

std::string describe(const EventContext& c) {
  char ids[80];
  std::snprintf(ids, sizeof ids, "%016llx%016llx/%016llx flags %lld ", static_cast<unsigned long long>(c.traceIdHi),
                static_cast<unsigned long long>(c.traceIdLo), static_cast<unsigned long long>(c.spanId),
                static_cast<long long>(c.traceFlags));
  return ids + c.attributes + (c.notRead.empty() ? "" : " (not read: " + c.notRead + ")");
}

// Every sample of a "switch-t" thread in `inContext`<k> must carry exactly thread t's context k, and every one
// in `outside` none.
void checkContexts(const Recorded& recording, const std::string& inContext, const std::string& outside,
                   const std::string& said) {
  size_t sampled = 0, exact = 0, outsideSamples = 0, outsideWithNone = 0;
  std::string firstWrong;
  for (const Sample& sample : recording.samples) {
    if (sample.threadName.rfind("switch-", 0) != 0) continue;
    const int t = std::stoi(sample.threadName.substr(7));
    if (hasFrame(sample, outside)) {
      ++outsideSamples;
      if (sample.context.none()) {
        ++outsideWithNone;
      } else if (firstWrong.empty()) {
        firstWrong = "outside a context: " + describe(sample.context);
      }
      continue;
    }
    for (int k = 0; k < kContexts; ++k) {
      if (!hasFrame(sample, inContext + std::to_string(k))) continue;
      ++sampled;
      if (same(sample.context, expected(t, k))) {
        ++exact;
      } else if (firstWrong.empty()) {
        firstWrong = "in context " + std::to_string(k) + " of thread " + std::to_string(t) + ": " +
                     describe(sample.context) + ", not " + describe(expected(t, k));
      }
    }
  }
  std::printf("[ figure ] %zu of %zu samples in a context carry it exactly; %zu of %zu outside carry none\n", exact,
              sampled, outsideWithNone, outsideSamples);
  // Two threads burn 3 s of CPU each, half of it in a context: at 10 ms ~300 samples there and ~300 outside
  // (both CPUs are theirs only part of the time on a busy machine: 50 is far below what even that gives).
  ASSERT_GE(sampled, 50u) << said;
  ASSERT_GE(outsideSamples, 50u) << said;
  EXPECT_GE(static_cast<double>(exact), 0.995 * static_cast<double>(sampled))
      << exact << " of " << sampled << " samples in a context carry it; the first wrong: " << firstWrong;
  EXPECT_EQ(outsideWithNone, outsideSamples) << "samples outside a context carry none; the first wrong: " << firstWrong;
}

class ThreadContextE2E : public ::testing::TestWithParam<std::tuple<Switcher, const char*>> {};

TEST_P(ThreadContextE2E, EverySampleCarriesTheContextItsThreadWasIn) {
  JFRBPF_REQUIRE_BPF();
  const auto& [switcher, interval] = GetParam();
  ScratchDir dir("thread-context");
  std::vector<std::string> argv = {otelBinary(switcher.program), std::to_string(kThreads), "60", "300"};
  if (switcher.library != nullptr) argv.push_back(otelBinary(switcher.library));
  ChildProcess workload(argv);
  ASSERT_TRUE(workload.awaitLine("switching", 10s).has_value());
  const std::string out = dir.file("contexts.jfr");
  const RunResult recorded = run({jfrbpfBinary(), "record", "-p", std::to_string(workload.pid()), "--interval",
                                  interval, "-d", "3s", "-o", out});
  ASSERT_EQ(recorded.exitCode, 0) << recorded.output;
  EXPECT_NE(recorded.output.find("events in an OpenTelemetry context"), std::string::npos) << recorded.output;

  checkContexts(readRecording(out), "spin_ctx", "spin_outside", recorded.output);
}

// A hostile writer's records: a variable pointing at unmapped memory, a record over the OTEP's bound, a value
// with a terminal escape and invalid UTF-8. Each read that fails is marked on its event and counted, never
// guessed; the text reaches the file escaped.
TEST(ThreadContextHostile, ReadsThatFailAreMarkedAndCountedAndTextIsEscaped) {
  JFRBPF_REQUIRE_BPF();
  ScratchDir dir("thread-context-hostile");
  ChildProcess workload({otelBinary("context_switcher_exe"), "--hostile", std::to_string(kThreads), "60", "300"});
  ASSERT_TRUE(workload.awaitLine("switching", 10s).has_value());
  const std::string out = dir.file("hostile.jfr");
  const RunResult recorded = run(
      {jfrbpfBinary(), "record", "-p", std::to_string(workload.pid()), "--interval", "1ms", "-d", "3s", "-o", out});
  ASSERT_EQ(recorded.exitCode, 0) << recorded.output;
  EXPECT_NE(recorded.output.find("record unreadable"), std::string::npos) << recorded.output;
  EXPECT_NE(recorded.output.find("attributes over 612 bytes"), std::string::npos) << recorded.output;

  size_t unmapped = 0, tooLarge = 0, escaped = 0, wrong = 0;
  std::string firstWrong;
  const EventContext tooLargeIds = expected(9, 0);
  for (const Sample& sample : readRecording(out).samples) {
    const EventContext& c = sample.context;
    bool right = true;
    if (hasFrame(sample, "spin_unmapped")) {
      ++unmapped;
      right = c.notRead == "record unreadable" && c.traceIdHi == 0 && c.spanId == 0 && c.attributes.empty();
    } else if (hasFrame(sample, "spin_too_large")) {
      ++tooLarge;
      // The ids are the record's; its attributes are not read.
      right = c.notRead == "attributes over 612 bytes" && c.traceIdHi == tooLargeIds.traceIdHi &&
              c.spanId == tooLargeIds.spanId && c.attributes.empty();
    } else if (hasFrame(sample, "spin_escaped")) {
      ++escaped;
      right = c.notRead.empty() && c.attributes == "http.route=\\x1b[2J\\xff\\,x";
    }
    if (!right && ++wrong == 1) firstWrong = describe(c);
  }
  std::printf("[ figure ] %zu samples at an unmapped record, %zu at one over the bound, %zu at escaped text\n",
              unmapped, tooLarge, escaped);
  ASSERT_GE(unmapped, 20u);
  ASSERT_GE(tooLarge, 20u);
  ASSERT_GE(escaped, 20u);
  EXPECT_EQ(wrong, 0u) << "the first wrong: " << firstWrong;
}

// The number after `label` on the summary line that starts with it ("  lost     3 of 1,204 sampling ticks").
uint64_t summaryNumber(const std::string& output, const std::string& label, const std::string& after = "") {
  const size_t line = output.find("\n  " + label);
  if (line == std::string::npos) return 0;
  size_t at = line + 3 + label.size();
  if (!after.empty()) at = output.find(after, at) + after.size();
  while (at < output.size() && output[at] == ' ') ++at;
  std::string digits;
  for (; at < output.size() && (std::isdigit(static_cast<unsigned char>(output[at])) || output[at] == ','); ++at) {
    if (output[at] != ',') digits += output[at];
  }
  return digits.empty() ? 0 : std::stoull(digits);
}

// --context-only=sampled keeps the samples of sampled traces only (context_switcher's even contexts), and says
// how many ticks it left out, so that samples + lost + left out = ticks; the views divide by the context.
TEST(ThreadContextOnly, SampledTracesAreKeptTheRestCountedAndTheViewsDivideByContext) {
  JFRBPF_REQUIRE_BPF();
  ScratchDir dir("thread-context-only");
  ChildProcess workload({otelBinary("context_switcher_exe"), std::to_string(kThreads), "60", "300"});
  ASSERT_TRUE(workload.awaitLine("switching", 10s).has_value());
  const std::string out = dir.file("sampled.jfr");
  const RunResult recorded = run({jfrbpfBinary(), "record", "-p", std::to_string(workload.pid()), "--interval", "1ms",
                                  "--context-only=sampled", "-d", "3s", "-o", out});
  ASSERT_EQ(recorded.exitCode, 0) << recorded.output;
  const uint64_t samples = summaryNumber(recorded.output, "samples");
  const uint64_t lost = summaryNumber(recorded.output, "lost");
  const uint64_t ticks = summaryNumber(recorded.output, "lost", " of");
  const uint64_t leftOut = summaryNumber(recorded.output, "left out");
  ASSERT_GT(samples, 100u) << recorded.output;
  ASSERT_GT(leftOut, samples) << "two thirds of the time outside a sampled trace: " << recorded.output;
  EXPECT_EQ(samples + lost + leftOut, ticks) << recorded.output;

  const Recorded recording = readRecording(out);
  for (const Sample& sample : recording.samples) {
    ASSERT_EQ(sample.context.traceFlags, 1) << describe(sample.context);
  }
  EXPECT_EQ(static_cast<uint64_t>(recording.lossCauses.at(
                "left out: outside an OpenTelemetry context (--context-only)")),
            leftOut)
      << "each thread's left-out ticks are in the file";

  const RunResult contexts = run({jfrbpfBinary(), "view", out, "contexts", "--width", "120"});
  ASSERT_EQ(contexts.exitCode, 0) << contexts.output;
  EXPECT_NE(contexts.output.find("CPU Time by http.route"), std::string::npos) << contexts.output;
  EXPECT_NE(contexts.output.find("/route/2"), std::string::npos) << contexts.output;
  EXPECT_EQ(contexts.output.find("/route/1"), std::string::npos) << "not a sampled trace: " << contexts.output;
  const RunResult one = run({jfrbpfBinary(), "view", out, "hot-methods", "--context", "http.route=/route/2"});
  ASSERT_EQ(one.exitCode, 0) << one.output;
  EXPECT_NE(one.output.find("spin_ctx2"), std::string::npos) << one.output;
  EXPECT_EQ(one.output.find("spin_ctx0"), std::string::npos) << one.output;
  const RunResult collapsed = run({jfrbpfBinary(), "convert", out, "--to", "collapsed", "--by", "http.route", "-o", "-"});
  ASSERT_EQ(collapsed.exitCode, 0) << collapsed.output;
  size_t lines = 0;
  for (size_t at = 0; at < collapsed.output.size();) {
    const size_t end = collapsed.output.find('\n', at);
    const std::string line = collapsed.output.substr(at, end - at);
    at = end == std::string::npos ? collapsed.output.size() : end + 1;
    if (line.empty()) continue;
    ++lines;
    EXPECT_TRUE(line.rfind("[http.route=/route/0];", 0) == 0 || line.rfind("[http.route=/route/2];", 0) == 0) << line;
  }
  EXPECT_GT(lines, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    AccessModels, ThreadContextE2E,
    ::testing::Combine(::testing::Values(Switcher{"InTheProgram", "context_switcher_exe", nullptr},
                                         Switcher{"LinkedGeneralDynamic", "context_switcher_gd", nullptr},
                                         Switcher{"LinkedTlsDesc", "context_switcher_desc", nullptr},
                                         Switcher{"Dlopened", "context_switcher_dlopen", "libotel_tls_gd.so"}),
                       ::testing::Values("10ms", "1ms")),
    [](const auto& info) {
      return std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param);
    });

// The same through a JVM: OtelSwitchApp's threads set their contexts through JNI, in a library the JVM loads
// with dlopen (dynamic TLS), around Java methods.
class JvmThreadContextE2E : public ::testing::TestWithParam<std::tuple<int, const char*>> {};

TEST_P(JvmThreadContextE2E, EverySampleCarriesTheContextItsThreadWasIn) {
  JFRBPF_REQUIRE_BPF();
  const auto& [jdk, interval] = GetParam();
  const std::string home = jdk == 25 ? jdk25Home() : jdk17Home();
  if (home.empty()) GTEST_SKIP() << "no JDK " << jdk << " installed (a Temurin 25 in /usr/lib/jvm)";
  ScratchDir dir("jvm-thread-context");
  ChildProcess jvm({home + "/bin/java", "-cp", OTEL_JAVA_CLASSES, "OtelSwitchApp", OTEL_WRITER_JNI,
                    std::to_string(kThreads), "300"});
  ASSERT_TRUE(jvm.awaitLine("switching", 30s).has_value());
  const std::string out = dir.file("contexts.jfr");
  const RunResult recorded =
      run({jfrbpfBinary(), "record", "-p", std::to_string(jvm.pid()), "--interval", interval, "-d", "4s", "-o", out});
  ASSERT_EQ(recorded.exitCode, 0) << recorded.output;
  checkContexts(readRecording(out), "spinCtx", "spinOutside", recorded.output);

  // The JDK's own tool shows the fields, by their names.
  const std::string tool = (jdk25Home().empty() ? jdk17Home() : jdk25Home()) + "/bin/jfr";
  const RunResult printed = run({tool, "print", "--events", "jdk.CPUTimeSample", out});
  ASSERT_EQ(printed.exitCode, 0) << printed.output;
  for (const char* field : {"traceIdHi = ", "traceIdLo = ", "spanId = ", "traceFlags = 1",
                            "contextAttributes = \"http.route=/route/"}) {
    EXPECT_NE(printed.output.find(field), std::string::npos) << field;
  }
  const RunResult contexts = run({tool, "print", "--events", "jfrbpf.ProcessContext", out});
  EXPECT_NE(contexts.output.find("serviceName = \"switcher\""), std::string::npos) << contexts.output;
}

// Waits, lock events and traces carry the context too: OtelSwitchApp's threads wait in their contexts
// (waitCtx<k> blocks on a monitor and sleeps holding it), recorded with --off-cpu, --lock=0 and a trace of
// waitCtx1.
class JvmWaitsContextE2E : public ::testing::TestWithParam<int> {};

TEST_P(JvmWaitsContextE2E, WaitsLockEventsAndTracesCarryTheContextTheirThreadWasIn) {
  JFRBPF_REQUIRE_BPF();
  const int jdk = GetParam();
  const std::string home = jdk == 25 ? jdk25Home() : jdk17Home();
  if (home.empty()) GTEST_SKIP() << "no JDK " << jdk << " installed (a Temurin 25 in /usr/lib/jvm)";
  ScratchDir dir("jvm-thread-context-waits");
  ChildProcess jvm({home + "/bin/java", "-cp", OTEL_JAVA_CLASSES, "OtelSwitchApp", OTEL_WRITER_JNI,
                    std::to_string(kThreads), "300", "waits"});
  ASSERT_TRUE(jvm.awaitLine("switching", 30s).has_value());
  const std::string out = dir.file("waits.jfr");
  const RunResult recorded =
      run({jfrbpfBinary(), "record", "-p", std::to_string(jvm.pid()), "--off-cpu", "--lock=0", "--method-trace",
           "OtelSwitchApp::waitCtx1", "-d", "4s", "-o", out});
  ASSERT_EQ(recorded.exitCode, 0) << recorded.output;
  const Recorded recording = readRecording(out);

  // The events of a "switch-t" thread with waitCtx<k> on their stacks, against thread t's context k.
  struct Tally {
    size_t events = 0, exact = 0;
    std::string firstWrong;
    void check(const std::string& thread, const std::vector<SampleFrame>& frames, const EventContext& context) {
      if (thread.rfind("switch-", 0) != 0) return;
      const int t = std::stoi(thread.substr(7));
      for (int k = 0; k < kContexts; ++k) {
        if (!hasFrame(frames, "waitCtx" + std::to_string(k))) continue;
        ++events;
        if (same(context, expected(t, k))) {
          ++exact;
        } else if (firstWrong.empty()) {
          firstWrong = describe(context) + ", not " + describe(expected(t, k));
        }
      }
    }
  };
  Tally waits, locks, traces;
  for (const OffCpuSample& wait : recording.offCpuSamples) waits.check(wait.threadName, wait.frames, wait.context);
  for (const LockEvent& lock : recording.lockEvents) {
    if (!lock.wait && !lock.park) locks.check(lock.threadName, lock.frames, lock.context);
  }
  for (const MethodTraceEvent& trace : recording.methodTraces) {
    if (trace.methodName != "waitCtx1") continue;
    // A trace's stack starts at the traced method's caller: its own frame is the event's method.
    traces.check(trace.threadName, {SampleFrame{"OtelSwitchApp", "waitCtx1", "", -1}}, trace.context);
  }
  std::printf("[ figure ] exact contexts: %zu of %zu off-CPU samples, %zu of %zu monitor enters, %zu of %zu traces\n",
              waits.exact, waits.events, locks.exact, locks.events, traces.exact, traces.events);
  // Each thread waits ~2 ms per call and ~100 calls a second: hundreds of each in 4 s; 20 is a floor that a
  // busy machine still clears.
  for (const auto& [what, tally] : {std::pair<const char*, const Tally*>{"off-CPU samples", &waits},
                                   {"monitor enters", &locks}, {"traces", &traces}}) {
    ASSERT_GE(tally->events, 20u) << what << "\n" << recorded.output;
    EXPECT_GE(static_cast<double>(tally->exact), 0.995 * static_cast<double>(tally->events))
        << what << ": the first wrong: " << tally->firstWrong;
  }
}

INSTANTIATE_TEST_SUITE_P(Jdks, JvmWaitsContextE2E, ::testing::Values(17, 25),
                         [](const auto& info) { return "Jdk" + std::to_string(info.param); });

INSTANTIATE_TEST_SUITE_P(Jdks, JvmThreadContextE2E,
                         ::testing::Combine(::testing::Values(17, 25), ::testing::Values("10ms", "1ms")),
                         [](const auto& info) {
                           return "Jdk" + std::to_string(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
                         });

}  // namespace
}  // namespace jfrbpf::test
