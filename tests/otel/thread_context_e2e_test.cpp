// What jfrbpf's samples carry of OpenTelemetry thread contexts (OTEP 4947): threads that switch context every
// 0.3 ms (tests/otel/context_switcher.c), with the variable in the program, in a library it links (general
// dynamic, TLSDESC) or in one it loads with dlopen, recorded at 10 ms and 1 ms. Each sample's frames say which
// context its thread was in: it must carry exactly that one, and none outside.
#include <gtest/gtest.h>

#include <signal.h>

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
