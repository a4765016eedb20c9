// Virtual threads on JDK 25 (their waits with --off-cpu, and a server's requests, are below). CPU samples: jfrbpf (from outside, `record -p`) and the JVM's own CPU-time sampler
// (jdk.CPUTimeSample, JEP 509) record the same run of tasks on Executors.newVirtualThreadPerTaskExecutor(); the
// share of the carriers' samples either gives to virtual threads must agree, and jfrbpf's virtual threads'
// samples must be written as the JDK writes them: the virtual thread as eventThread, its stack its
// continuation's alone, down to the continuation's entry, through the frames still frozen in its stack chunks
// (FrozenFrames below). Where a chunk cannot be read, the stack ends in the marker that says so instead,
// never in the carrier's frames.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/java_e2e/printed_samples.h"
#include "tests/java_e2e/workloads.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;

constexpr int kJdk = 25;

// The JVM's own recording must cover jfrbpf's: the workload runs this long, jfrbpf records for kRecordFor of it
// once the first tasks ran.
constexpr const char* kRunSeconds = "16";
constexpr const char* kRecordFor = "8s";

// Samples of the scheduler's carrier threads, as either profiler attributes them: the virtual threads' and
// the carriers' own. Other threads are left out because the two profilers do not sample the same ones
// (jfrbpf also samples the JVM's non-Java threads; the JDK its whole life and jfrbpf's agent thread). So are
// samples taken in native code or the kernel: the JDK's sampler has next to none (1 of 2,249 in a run where
// jfrbpf's were 7 %), and among them is the carriers' own futex wake as they schedule a parked virtual
// thread's timeout (1.5 % of their CPU time, right there in jfrbpf's samples, absent from the JDK's).
bool comparable(const JfrSample& s) {
  if (!s.virtualThread && !startsWith(s.javaName, "ForkJoinPool-1-worker-")) return false;
  return !s.frames.empty() && s.frames.front().type != "Native";
}

struct Share {
  size_t carrierSamples = 0;
  size_t virtualSamples = 0;
  double percent() const { return 100.0 * static_cast<double>(virtualSamples) / static_cast<double>(carrierSamples); }
};

// Over the samples taken from `from` to `to` (UTC nanoseconds of the day).
Share virtualShare(const std::vector<JfrSample>& samples, int64_t from, int64_t to) {
  Share share;
  for (const JfrSample& s : samples) {
    if (s.startNanosOfDay < from || s.startNanosOfDay > to || !comparable(s)) continue;
    ++share.carrierSamples;
    if (s.virtualThread) ++share.virtualSamples;
  }
  return share;
}

// The carriers' own comparable samples by their leaf method, most first: where the shares differ.
void printCarrierLeaves(const char* profiler, const std::vector<JfrSample>& samples, int64_t from, int64_t to) {
  std::map<std::string, size_t> byLeaf;
  for (const JfrSample& s : samples) {
    if (s.startNanosOfDay >= from && s.startNanosOfDay <= to && comparable(s) && !s.virtualThread) {
      ++byLeaf[s.frames.front().name()];
    }
  }
  std::vector<std::pair<size_t, std::string>> leaves;
  for (const auto& [leaf, count] : byLeaf) leaves.emplace_back(count, leaf);
  std::sort(leaves.rbegin(), leaves.rend());
  for (size_t i = 0; i < leaves.size() && i < 5; ++i) {
    std::printf("[ figure ] %s carrier's own sample leaves: %5zu %s\n", profiler, leaves[i].first,
                leaves[i].second.c_str());
  }
}

std::vector<const JfrSample*> virtualSamples(const std::vector<JfrSample>& samples) {
  std::vector<const JfrSample*> out;
  for (const JfrSample& s : samples) {
    if (s.virtualThread) out.push_back(&s);
  }
  return out;
}

bool endsAtContinuationEntry(const JfrSample& s) {
  return !s.frames.empty() && !s.truncated && s.frames.back().className == "jdk/internal/vm/Continuation" &&
         s.frames.back().method == "enterSpecial";
}

// Empty when the virtual thread's stack is its continuation's: down to its entry, or truncated where its
// frozen frames could not be read.
std::string continuationProblem(const JfrSample& s) {
  if (endsAtContinuationEntry(s)) return "";
  if (s.frames.empty()) return "no stack";
  if (s.truncated && s.frames.back().method == "[truncated: frozen virtual thread frames]") return "";
  return std::string(s.truncated ? "truncated" : "complete") + ", ends at " + s.frames.back().name() + ":\n" +
         s.describe();
}

std::string compileWorkload(const ScratchDir& dir, const std::string& source, int jdk) {
  std::string classes = dir.file("classes");
  RunResult javac =
      run({jdkHome(jdk) + "/bin/javac", "-d", classes, std::string(VTHREADS_JAVA_SOURCES) + "/" + source});
  EXPECT_EQ(javac.exitCode, 0) << javac.output;
  return classes;
}

// What the workload printed up to its "ready" line (all it printed, if it never came).
std::string awaitReady(ChildProcess& jvm) {
  std::string printed;
  for (auto line = jvm.readLine(60s); line; line = jvm.readLine(60s)) {
    printed += *line + "\n";
    if (startsWith(*line, "ready")) break;
  }
  return printed;
}

// What a workload run printed, and jfrbpf's recording of it.
struct RecordedRun {
  std::string printed;
  RunResult recorded;
};

// Compiles `source`, runs `java <jvm...>` of JDK `jdk` (the classes' path is put where "CLASSES" stands),
// records it with `jfrbpf record -p` into `out` for `recordFor` with `options` once it printed "ready", and
// waits for it to end. A step that fails fails the test: callers check HasFailure().
RecordedRun recordWorkload(const ScratchDir& dir, const std::string& source, std::vector<std::string> jvm,
                           const std::string& out, const std::string& recordFor,
                           const std::vector<std::string>& options, int jdk = kJdk) {
  RecordedRun run;
  std::string classes = compileWorkload(dir, source, jdk);
  if (::testing::Test::HasFailure()) return run;
  std::replace(jvm.begin(), jvm.end(), std::string("CLASSES"), classes);
  jvm.insert(jvm.begin(), javaBinary(jdk));
  ChildProcess process(jvm, ChildOptions{.captureStderr = true, .extraEnv = {}});
  run.printed = awaitReady(process);
  if (run.printed.find("ready") == std::string::npos) {
    ADD_FAILURE() << "the workload never got ready:\n" << run.printed;
    return run;
  }
  run.recorded = recordPid(process.pid(), out, recordFor, options);
  EXPECT_EQ(run.recorded.exitCode, 0) << run.recorded.output;
  run.printed += process.readAll(60s);
  EXPECT_EQ(process.wait(30s), 0) << run.printed;
  return run;
}

TEST(VirtualThreadsJdk25, CpuSamplesBelongToTheMountedVirtualThreadAsInTheJdksOwnSamples) {
  JAVA_E2E_REQUIRE(kJdk);
  ScratchDir dir("vthreads-e2e");
  std::string ours = dir.file("jfrbpf.jfr");
  std::string theirs = dir.file("jdk.jfr");
  // Both every 1 ms of a thread's CPU time: at 10 ms the shares of one run vary by about a point each.
  RecordedRun run = recordWorkload(dir, "VirtualThreadWork.java",
                                   {"-XX:StartFlightRecording:settings=none,+jdk.CPUTimeSample#enabled=true,"
                                    "+jdk.CPUTimeSample#throttle=1ms,filename=" + theirs,
                                    "-cp", "CLASSES", "VirtualThreadWork", kRunSeconds},
                                   ours, kRecordFor, {"--interval", "1ms"});
  ASSERT_FALSE(HasFailure());

  std::vector<JfrSample> ourSamples = printedSamples(ours, "jdk.CPUTimeSample", kJdk);
  std::vector<JfrSample> theirSamples = printedSamples(theirs, "jdk.CPUTimeSample", kJdk);
  expectReaderAgrees(ours, ourSamples);
  ASSERT_FALSE(ourSamples.empty());
  int64_t from = ourSamples.front().startNanosOfDay, to = from;
  for (const JfrSample& s : ourSamples) {
    from = std::min(from, s.startNanosOfDay);
    to = std::max(to, s.startNanosOfDay);
  }
  Share mine = virtualShare(ourSamples, from, to);
  Share jdks = virtualShare(theirSamples, from, to);
  ASSERT_GE(mine.carrierSamples, 1000u);
  ASSERT_GE(jdks.carrierSamples, 1000u);
  std::printf("[ figure ] carriers' samples given to virtual threads: jfrbpf %.2f %% of %zu, JDK 25 %.2f %% of %zu, "
              "difference %+.2f pp\n",
              mine.percent(), mine.carrierSamples, jdks.percent(), jdks.carrierSamples,
              mine.percent() - jdks.percent());
  printCarrierLeaves("jfrbpf", ourSamples, from, to);
  printCarrierLeaves("JDK 25", theirSamples, from, to);
  // The spread of the difference on the 2-CPU VM (2026-11-28), from 4,200-14,000 jfrbpf samples and
  // 1,000-3,800 of the JDK's a run: five runs alone -0.23, +0.03, -0.08, +0.00, +0.22 pp; one beside two
  // CPU spinners -0.10 pp; five earlier runs, some while the project compiled, +0.18, -0.87, -0.15, -0.45,
  // -1.77 pp (jfrbpf's 97.9-99.7 % against the JDK's 99.0-99.8 %). The -1.77 is not explained yet: the
  // carriers' own scheduling work may grow when they wait for CPUs, and the JDK's sampler, whose stack walks
  // wait for a safepoint poll, may see less of it.
  EXPECT_NEAR(mine.percent(), jdks.percent(), 2.0);

  // The virtual threads' samples are written as JDK 25 writes them: no OS thread, the virtual thread's Java id,
  // and its name ("task-17"), the same as the JDK's for a virtual thread both sampled.
  std::map<int64_t, std::string> theirNames;
  for (const JfrSample& s : theirSamples) {
    if (s.virtualThread) theirNames[s.javaThreadId] = s.javaName;
  }
  size_t virtualThreads = 0, named = 0, sameAsTheJdk = 0, bothSampled = 0;
  for (const JfrSample& s : ourSamples) {
    if (!s.virtualThread) continue;
    ++virtualThreads;
    EXPECT_EQ(s.osThreadId, 0);
    EXPECT_EQ(s.osName, "");
    ASSERT_GT(s.javaThreadId, 0);
    if (startsWith(s.javaName, "task-")) ++named;
    auto theirs = theirNames.find(s.javaThreadId);
    if (theirs == theirNames.end()) continue;
    ++bothSampled;
    if (theirs->second == s.javaName) ++sameAsTheJdk;
  }
  ASSERT_GT(virtualThreads, 0u);
  std::printf("[ figure ] virtual threads' samples named: %zu of %zu; named as the JDK names them: %zu of %zu\n", named,
              virtualThreads, sameAsTheJdk, bothSampled);
  // A name is read from the Thread object once, where the sample saw it; a collection that moved the object
  // since makes that read fail, and the next samples of the thread try again.
  EXPECT_GE(static_cast<double>(named), 0.99 * static_cast<double>(virtualThreads));
  EXPECT_GE(static_cast<double>(sameAsTheJdk), 0.99 * static_cast<double>(bothSampled));
  EXPECT_GT(bothSampled, 100u);
  // How many are complete depends on how the JVM thawed them (the JIT decides): a figure, not a check.
  double ourComplete = percentWithout(
      virtualSamples(ourSamples), [](const JfrSample& s) { return endsAtContinuationEntry(s) ? "" : "frozen frames"; },
      "jfrbpf's virtual thread stacks down to Continuation.enterSpecial");
  double theirComplete = percentWithout(
      virtualSamples(theirSamples), [](const JfrSample& s) { return endsAtContinuationEntry(s) ? "" : "incomplete"; },
      "JDK 25's virtual thread stacks down to Continuation.enterSpecial");
  std::printf("[ figure ] complete virtual thread stacks: jfrbpf %.2f %%, JDK 25 %.2f %%\n", ourComplete,
              theirComplete);
  // The few others: walks that stopped short for another reason, as in any thread (0.14 % in a run).
  EXPECT_GE(percentWithout(virtualSamples(ourSamples), continuationProblem, "jfrbpf's virtual thread stacks"), 99.0);
}

// Method traces (and the agent's events, through the same probe) of a virtual thread are that virtual thread's,
// as the JDK's own jdk.MethodTrace: VirtualThreadWork.task runs only in virtual threads.
TEST(VirtualThreadsJdk25, MethodTracesOfAVirtualThreadAreItsOwn) {
  JAVA_E2E_REQUIRE(kJdk);
  ScratchDir dir("vthreads-traces");
  std::string out = dir.file("traces.jfr");
  RecordedRun run = recordWorkload(dir, "VirtualThreadWork.java", {"-cp", "CLASSES", "VirtualThreadWork", "8"}, out,
                                   "3s", {"--method-trace", "VirtualThreadWork::task"});
  ASSERT_FALSE(HasFailure());

  std::vector<JfrSample> traces = printedSamples(out, "jdk.MethodTrace", kJdk);
  ASSERT_GE(traces.size(), 10u) << run.recorded.output;
  for (const JfrSample& trace : traces) {
    ASSERT_TRUE(trace.virtualThread) << trace.javaName << " (tid " << trace.osThreadId << ")\n" << trace.describe();
    EXPECT_EQ(trace.osThreadId, 0);
    EXPECT_EQ(continuationProblem(trace), "");
  }
}

// A virtual thread deep in a recursion gets only its top frames back on the carrier when it resumes; the
// rest stay frozen in its continuation's stack chunks on the heap, and the walker goes through them from the
// return barrier to the continuation's entry. Each task's recursion depth is known, so each sample taken while
// it computes must show all of it: VirtualThreadDeepStack.recurse DEPTH + 1 to DEPTH + 8 times in a row,
// below it the task's frames down to Continuation.enterSpecial. Compiled (C2) and interpreted (-Xint) frames
// are laid out differently in a chunk: both are run.
class FrozenFrames : public ::testing::TestWithParam<const char*> {};

std::string deepStackProblem(const JfrSample& s) {
  constexpr size_t kDepth = 120;  // VirtualThreadDeepStack.DEPTH
  const std::string klass = "VirtualThreadDeepStack";
  int first = s.find(klass, "recurse");
  if (first < 0) return "no recurse frame";
  size_t run = 0;
  for (size_t i = static_cast<size_t>(first); i < s.frames.size() && s.frames[i].method == "recurse"; ++i) ++run;
  if (run != s.count(klass, "recurse")) return "recurse frames not in one run";
  if (run < kDepth + 1 || run > kDepth + 8) return std::to_string(run) + " recurse frames";
  if (!endsAtContinuationEntry(s)) return "ends at " + s.frames.back().name();
  return "";
}

TEST_P(FrozenFrames, ADeepVirtualThreadsStackIsCompleteThroughItsFrozenFrames) {
  JAVA_E2E_REQUIRE(kJdk);
  ScratchDir dir("vthreads-frozen");
  std::string out = dir.file("deep.jfr");
  std::vector<std::string> jvm{"-cp", "CLASSES", "VirtualThreadDeepStack", "8"};
  if (std::string(GetParam()) != "") jvm.insert(jvm.begin(), GetParam());
  RecordedRun run = recordWorkload(dir, "VirtualThreadDeepStack.java", jvm, out, "4s", {"--interval", "2ms"});
  ASSERT_FALSE(HasFailure());

  // Those computing: in compute, or in the innermost recurse itself (interpreted, or compute inlined).
  std::vector<JfrSample> samples = printedSamples(out, "jdk.CPUTimeSample", kJdk);
  std::vector<const JfrSample*> computing;
  for (const JfrSample& s : samples) {
    const JfrFrame* top = s.topJavaFrame();
    if (s.virtualThread && top == &s.frames.front() && top->className == "VirtualThreadDeepStack" &&
        (top->method == "compute" || top->method == "recurse")) {
      computing.push_back(&s);
    }
  }
  ASSERT_GE(computing.size(), 1000u) << run.recorded.output;
  // 2026-11-28, 2-CPU VM, single runs: 100.00 % of 7,382 (C2), 99.97 % of 7,684 (-Xint) at 1 ms; by hand, 99.9 %
  // of 19,351 (C2). The rest were taken while the JVM thawed or froze frames, between the chunk and the stack.
  EXPECT_GE(percentWithout(computing, deepStackProblem, std::string("deep virtual thread stacks ") + GetParam()), 99.0);
}

INSTANTIATE_TEST_SUITE_P(VirtualThreadsJdk25, FrozenFrames, ::testing::Values("", "-Xint"),
                         [](const auto& info) { return std::string(info.param[0] ? "Interpreted" : "Compiled"); });

// One batch of VirtualThreadWaits.java: its virtual threads' sleeps, as the workload measured them.
struct Batch {
  int64_t start = 0, end = 0;  // UTC nanoseconds of the day
  int64_t sleeps = 0, sleptNanos = 0;
};

std::vector<Batch> printedBatches(const std::string& printed) {
  std::vector<Batch> batches;
  for (const std::string& line : linesWith(printed, "batch ")) {
    Batch b;
    long long start = 0, end = 0, sleeps = 0, slept = 0;
    if (std::sscanf(line.c_str(), "batch %lld %lld %lld %lld", &start, &end, &sleeps, &slept) != 4) continue;
    b.start = start, b.end = end, b.sleeps = sleeps, b.sleptNanos = slept;
    batches.push_back(b);
  }
  return batches;
}

// With --off-cpu, a parked virtual thread's wait is an off-CPU sample of that virtual thread, although no OS
// thread sleeps for it (it unmounts): its duration, and its whole stack from the JVM's own walk. The
// workload's sleeps of 20 ms are longer than the 1 ms interval, so each one is recorded, standing for itself.
// A virtual thread blocked on a monitor unmounts (JDK 24+) and may take the monitor on another carrier than the
// one it blocked on, after other virtual threads began to wait there: with --lock its wait is one
// jdk.JavaMonitorEnter of that virtual thread, as long as it waited. (The agent keeps each wait's start with
// the Java thread, not the OS thread.) Only the waiters contend in this workload: every event of a virtual
// thread is a waiter's. Its stack is not checked: the JVM reports the entry as the virtual thread resumes,
// before any of its frames is back on the carrier (README, known limits).
TEST(VirtualThreadsJdk25, AVirtualThreadBlockedOnAMonitorIsOneLockEventAsLongAsItsWait) {
  JAVA_E2E_REQUIRE(kJdk);
  ScratchDir dir("vthreads-monitors");
  std::string out = dir.file("monitors.jfr");
  RecordedRun run = recordWorkload(dir, "VirtualThreadMonitors.java", {"-cp", "CLASSES", "VirtualThreadMonitors", "8"},
                                   out, "4s", {"--lock"});
  ASSERT_FALSE(HasFailure());

  std::vector<JfrSample> entries = printedSamples(out, "jdk.JavaMonitorEnter", kJdk);
  std::vector<const JfrSample*> waiters;
  int64_t first = INT64_MAX, last = 0;
  for (const JfrSample& e : entries) {
    first = std::min(first, e.startNanosOfDay);
    last = std::max(last, e.startNanosOfDay + std::max<int64_t>(0, e.durationNanos));
    if (e.virtualThread) waiters.push_back(&e);
  }
  ASSERT_FALSE(waiters.empty()) << run.recorded.output;

  // Every waiter of each round that ran wholly between the first and the last event, and their time.
  size_t roundsChecked = 0;
  for (const std::string& line : linesWith(run.printed, "round ")) {
    long long start = 0, end = 0, count = 0, blocked = 0;
    if (std::sscanf(line.c_str(), "round %lld %lld %lld %lld", &start, &end, &count, &blocked) != 4) continue;
    if (start <= first || end + 200'000'000 >= last) continue;
    int64_t recorded = 0, nanos = 0;
    for (const JfrSample* w : waiters) {
      if (w->startNanosOfDay >= start && w->startNanosOfDay <= end) {
        ++recorded;
        nanos += w->durationNanos;
      }
    }
    ++roundsChecked;
    EXPECT_EQ(recorded, count) << "round at " << start;
    std::printf("[ figure ] round of %lld blocked virtual threads: recorded %lld, %.2f ms blocked against %.2f ms "
                "measured around synchronized\n",
                count, static_cast<long long>(recorded), nanos / 1e6, blocked / 1e6);
    // 2026-11-28, 2-CPU VM: each of 16 rounds 99.87-99.98 % of the workload's figure (the microseconds before
    // the JVM reports the contention). Before the agent kept waits with the Java thread: 13 events in 5 s of
    // about 60, some twice as long as any wait.
    EXPECT_LE(nanos, blocked);
    EXPECT_GE(static_cast<double>(nanos), 0.98 * static_cast<double>(blocked));
  }
  EXPECT_GE(roundsChecked, 5u) << run.printed;
}

// JDK 21 too, where installed: its virtual threads unmount through the same method (none is installable on this
// project's VM, whose packages come from Debian 12; the test then says so and skips).
class VirtualThreadWaits : public ::testing::TestWithParam<int> {};

TEST_P(VirtualThreadWaits, ParkedVirtualThreadsWaitsAreTheirOwnOffCpuSamples) {
  const int jdk = GetParam();
  JAVA_E2E_REQUIRE(jdk);
  ScratchDir dir("vthreads-waits");
  std::string out = dir.file("waits.jfr");
  RecordedRun run = recordWorkload(dir, "VirtualThreadWaits.java", {"-cp", "CLASSES", "VirtualThreadWaits", "9"}, out,
                                   "5s", {"--off-cpu"}, jdk);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(linesWith(run.recorded.output, "waits of virtual threads").size(), 1u) << run.recorded.output;

  std::vector<JfrSample> waits = printedSamples(out, "jfrbpf.OffCPUSample", jdk);
  std::vector<const JfrSample*> sleeps;
  int64_t firstVirtual = INT64_MAX, last = 0;
  for (const JfrSample& w : waits) {
    last = std::max(last, w.startNanosOfDay + std::max<int64_t>(0, w.durationNanos));
    if (!w.virtualThread) continue;
    firstVirtual = std::min(firstVirtual, w.startNanosOfDay);
    // Unmounted: the sleep itself. (Its carrier's own waits while it was mounted, preempted as it froze the
    // continuation, say, are the virtual thread's too, in the scheduler's states.)
    if (w.state == "parked" && w.find("VirtualThreadWaits", "sleeper") >= 0) sleeps.push_back(&w);
  }
  ASSERT_FALSE(sleeps.empty()) << run.recorded.output;
  for (const JfrSample* w : sleeps) {
    ASSERT_EQ(w->osThreadId, 0) << w->describe();
    ASSERT_GT(w->javaThreadId, 0);
    // Thread.sleep(20) unmounts once its timer is set: the wait is the sleep, less what ran before the yield.
    EXPECT_GE(w->durationNanos, 19'000'000) << w->describe();
    EXPECT_EQ(w->weightNanos, w->durationNanos);
    // The virtual thread's own frames, whole: where it parked, the workload's method, down to the
    // continuation's entry, where its CPU samples end too.
    EXPECT_FALSE(w->truncated) << w->describe();
    EXPECT_EQ(w->frames.front().className, "java/lang/VirtualThread") << w->describe();
    EXPECT_GE(w->find("java/lang/Thread", "sleep"), 0) << w->describe();
    EXPECT_TRUE(endsAtContinuationEntry(*w)) << w->describe();
  }

  // Every sleep of each batch that ran wholly while the recording took waits (with 200 ms to spare for the
  // agent's last records at the end), and their time: the workload measured each sleep around Thread.sleep,
  // which holds the unmounted wait and a little more.
  size_t batchesChecked = 0;
  for (const Batch& batch : printedBatches(run.printed)) {
    if (batch.start <= firstVirtual || batch.end + 200'000'000 >= last) continue;
    int64_t count = 0, nanos = 0;
    for (const JfrSample* w : sleeps) {
      if (w->startNanosOfDay >= batch.start - 50'000'000 && w->startNanosOfDay <= batch.end + 50'000'000) {
        ++count;
        nanos += w->durationNanos;
      }
    }
    ++batchesChecked;
    EXPECT_EQ(count, batch.sleeps) << "batch at " << batch.start;
    std::printf("[ figure ] batch of %lld sleeps: recorded %lld, %.2f ms of wait against %.2f ms measured around "
                "Thread.sleep\n",
                static_cast<long long>(batch.sleeps), static_cast<long long>(count), nanos / 1e6,
                batch.sleptNanos / 1e6);
    // Measured on the 2-CPU VM (2026-11-28): 99.82-99.93 % of the workload's figure over 9 batches on a quiet
    // VM, 99.89-99.97 % over 8 beside two CPU spinners. 98 % leaves room for the microseconds each sleep
    // spends mounted.
    EXPECT_LE(nanos, batch.sleptNanos);
    EXPECT_GE(static_cast<double>(nanos), 0.98 * static_cast<double>(batch.sleptNanos));
  }
  EXPECT_GE(batchesChecked, 3u) << run.printed;
}

INSTANTIATE_TEST_SUITE_P(Jdk, VirtualThreadWaits, ::testing::Values(25, 21),
                         [](const auto& info) { return "Jdk" + std::to_string(info.param); });

// A virtual-thread-per-task server under load (com.sun.net.httpserver, its own HTTP clients): each request's
// work is CPU samples of its virtual thread, and its 2-ms sleep a wait of that virtual thread, with the
// handler's stack down to the continuation's entry.
TEST(VirtualThreadsJdk25, AServersRequestsRunAndWaitOnTheirOwnVirtualThreads) {
  JAVA_E2E_REQUIRE(kJdk);
  ScratchDir dir("vthreads-server");
  std::string out = dir.file("server.jfr");
  RecordedRun run = recordWorkload(dir, "VirtualThreadServer.java", {"-cp", "CLASSES", "VirtualThreadServer", "14"},
                                   out, "4s", {"--off-cpu", "--interval", "1ms"});
  ASSERT_FALSE(HasFailure());

  // Its requests' waits: each 2-ms sleep (4,100 in a 4-s recording on the quiet 2-CPU VM, about 1,000
  // requests/s), unmounted; and a carrier's own waits while a handler was mounted on it (preempted, or
  // waking the server's selector), the scheduler hooks' records, which are the virtual thread's too.
  size_t sleeps = 0, mountedWaits = 0;
  for (const JfrSample& w : printedSamples(out, "jfrbpf.OffCPUSample", kJdk)) {
    if (w.find("VirtualThreadServer", "handle") < 0) continue;
    ASSERT_TRUE(w.virtualThread) << w.javaName << " (tid " << w.osThreadId << ", " << w.state << ")\n"
                                 << w.describe();
    EXPECT_EQ(w.osThreadId, 0);
    if (w.state == "parked") EXPECT_TRUE(startsWith(w.javaName, "handler-")) << w.javaName;
    EXPECT_EQ(continuationProblem(w), "") << w.state;
    if (w.state != "parked") {
      ++mountedWaits;
      continue;
    }
    ++sleeps;
    EXPECT_GE(w.find("java/lang/Thread", "sleep"), 0) << w.describe();
    EXPECT_GE(w.find("sun/net/httpserver/ServerImpl$Exchange", "run"), 0) << w.describe();
    EXPECT_TRUE(endsAtContinuationEntry(w)) << w.describe();
    EXPECT_GE(w.durationNanos, 1'900'000) << w.describe();
    EXPECT_GE(w.weightNanos, w.durationNanos);
  }
  std::printf("[ figure ] server: %zu sleeps of virtual threads, %zu waits of their carriers while mounted\n", sleeps,
              mountedWaits);
  EXPECT_GE(sleeps, 200u) << run.recorded.output;

  // Its requests' work: compute() runs only in the handlers' virtual threads, named on their samples (read
  // from the Thread object the sample saw) as well as by their waits.
  size_t computing = 0, named = 0;
  for (const JfrSample& s : printedSamples(out, "jdk.CPUTimeSample", kJdk)) {
    if (s.find("VirtualThreadServer", "compute") < 0) continue;
    ++computing;
    ASSERT_TRUE(s.virtualThread) << s.javaName << " (tid " << s.osThreadId << ")\n" << s.describe();
    EXPECT_EQ(continuationProblem(s), "");
    if (startsWith(s.javaName, "handler-")) ++named;
  }
  EXPECT_GE(computing, 20u) << run.recorded.output;
  std::printf("[ figure ] server: %zu of %zu samples of compute() name their handler\n", named, computing);
  EXPECT_GE(static_cast<double>(named), 0.99 * static_cast<double>(computing));
}

}  // namespace
}  // namespace jfrbpf::test
