// Method timing and tracing end to end: the real jfrbpf binary attached to real JVMs (JDK 17, and JDK 25
// when installed) running a workload that calls each method a known number of times under -Xverify:all;
// the recording is read with the project's reader and with the JDK's own `jfr print` / `jfr view`.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "formats/jfr/reader/recording.h"
#include "jvmsupport/protocol/timing_table.h"
#include "test_config.h"
#include "tests/record/record_test_support.h"
#include "tests/support/child_process.h"
#include "userspace/jvm/java_model.h"
#include "userspace/record/jvm/jvm_connection.h"
#include "userspace/record/sampling/bpf_sampler.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;
namespace reader = jfrbpf::jfr::reader;

constexpr const char* kWorkload = "TimingWorkload";
// Every method kind the issue names: plain, sleeping, throwing, constructors (one whose super() throws),
// an annotation, overloads, recursion 201 deep, exceptions unwinding many frames, and a JDK class.
constexpr const char* kTimingFilter =
    "TimingWorkload::tick;TimingWorkload::nap;TimingWorkload::fail;TimingWorkload$Widget::<init>;"
    "@TimingWorkload$Timed;TimingWorkload$Overloads::f;TimingWorkload::deepThrow;TimingWorkload::depth;"
    "TimingWorkload::brokenConstructors;TimingWorkload$BrokenChild::<init>;java.util.HashMap::resize;seed.Jsr";
constexpr const char* kTraceFilter = "::<clinit>;TimingWorkload::fail";

struct Jdk {
  std::string label;
  std::string home;
};
void PrintTo(const Jdk& jdk, std::ostream* out) { *out << jdk.label; }

std::string classesDir() { return JFRBPF_TIMING_TEST_CLASSES; }

bool haveRoot() { return geteuid() == 0; }

ChildOptions withStderr() {
  ChildOptions options;
  options.captureStderr = true;
  return options;
}

// "com/foo/Bar.run(I)V" for a jdk.types.Method value.
std::string methodKey(const reader::Value& method) {
  std::optional<reader::MethodInfo> m = reader::methodInfo(method);
  return m ? std::string(m->className) + "." + std::string(m->methodName) + std::string(m->descriptor) : "?";
}

struct Timing {
  int64_t invocations = 0, minimum = 0, average = 0, maximum = 0;
};

struct Trace {
  std::string method;
  int64_t duration = 0;
  std::string threadName;
  std::vector<std::string> frames;  // "class.method", leaf first
};

struct Recorded {
  std::map<std::string, Timing> timings;  // the last batch per method
  std::vector<Trace> traces;
  std::map<std::string, std::string> settings;  // "<event type id>#filter" -> value
  std::vector<std::string> notes;               // jfrbpf.Note messages
  size_t timingEvents = 0;
};

Recorded readTimingRecording(const std::string& path) {
  Recorded out;
  reader::Recording recording = reader::Recording::open(path);
  std::map<int64_t, std::string> eventNames;
  recording.forEachEvent([&](const reader::RecordedEvent& event) {
    const std::string& type = event.type().name;
    if (type == "jdk.MethodTiming") {
      Timing t{event.getLong("invocations"), event.getLong("minimum"), event.getLong("average"), event.getLong("maximum")};
      out.timings[methodKey(event.get("method"))] = t;
      ++out.timingEvents;
    } else if (type == "jdk.MethodTrace") {
      Trace t;
      t.method = methodKey(event.get("method"));
      t.duration = event.durationNanos();
      if (auto thread = reader::threadOf(event)) t.threadName = std::string(thread->javaName);
      for (const reader::Frame& f : reader::StackTraceView(event.get("stackTrace")).frames()) {
        t.frames.push_back(std::string(f.className) + "." + std::string(f.methodName));
      }
      out.traces.push_back(std::move(t));
    } else if (type == "jfrbpf.Note") {
      out.notes.emplace_back(event.getString("message"));
    } else if (type == "jdk.ActiveSetting") {
      out.settings[std::to_string(event.getLong("id")) + "#" + std::string(event.getString("name"))] =
          std::string(event.getString("value"));
    }
  });
  return out;
}

// The workload and jfrbpf, run as a user would: the workload waits for the go file until jfrbpf reports
// its instrumentation, then calls everything and prints what it did.
struct WorkloadRun {
  std::map<std::string, std::string> calls;  // "calls <what> <n...>" lines
  int64_t napAverageNs = 0;
  std::string workloadOutput;
  std::string jfrbpfOutput;
  int jfrbpfExit = -1;
  pid_t jvmPid = 0;
};

class TimingRun {
 public:
  TimingRun(const Jdk& jdk, const std::string& name, std::vector<std::string> jvmOptions = {})
      : scratch_(name), jdk_(jdk), jvmOptions_(std::move(jvmOptions)) {}

  std::string path(const std::string& file) const { return scratch_.file(file); }

  // Starts the workload and waits for its "ready" line.
  void startWorkload() {
    std::vector<std::string> argv{jdk_.home + "/bin/java", "-Xverify:all"};
    argv.insert(argv.end(), jvmOptions_.begin(), jvmOptions_.end());
    argv.insert(argv.end(), {"-cp", classesDir(), kWorkload, path("go")});
    workload_ = std::make_unique<ChildProcess>(argv, withStderr());
    while (auto line = workload_->readLine(60s)) {
      run_.workloadOutput += *line + "\n";
      if (line->rfind("ready ", 0) == 0) {
        run_.jvmPid = static_cast<pid_t>(std::stol(line->substr(6)));
        return;
      }
    }
    FAIL() << "the workload did not start:\n" << run_.workloadOutput;
  }

  // Attaches jfrbpf with `options` and waits until it instrumented the JVM.
  void startJfrbpf(const std::vector<std::string>& options) {
    std::vector<std::string> argv{jfrbpfBinary(), "record", "-p", std::to_string(run_.jvmPid), "-o", path("timing.jfr")};
    argv.insert(argv.end(), options.begin(), options.end());
    jfrbpf_ = std::make_unique<ChildProcess>(argv, withStderr());
    while (auto line = jfrbpf_->readLine(180s)) {
      run_.jfrbpfOutput += *line + "\n";
      if (line->find("instrumented") != std::string::npos) return;
      if (line->find("without method timing") != std::string::npos) break;
    }
    FAIL() << "jfrbpf did not instrument the JVM:\n" << run_.jfrbpfOutput;
  }

  // Lets the workload run its calls, then stops jfrbpf like Ctrl-C does.
  void runWorkloadAndStop() {
    std::ofstream(path("go")).put('\n');
    bool done = false;
    while (auto line = workload_->readLine(120s)) {
      run_.workloadOutput += *line + "\n";
      std::istringstream in(*line);
      std::string tag, what;
      in >> tag;
      if (tag == "calls" && in >> what) {
        std::string rest;
        std::getline(in, rest);
        run_.calls[what] = rest.substr(rest.find_first_not_of(' '));
      } else if (tag == "nap-average-ns") {
        in >> run_.napAverageNs;
      } else if (tag == "done") {
        done = true;
        break;
      }
    }
    ASSERT_TRUE(done) << "the workload did not finish:\n" << run_.workloadOutput;
    jfrbpf_->signal(SIGINT);
    std::optional<int> exit = jfrbpf_->wait(120s);
    run_.jfrbpfOutput += jfrbpf_->readAll(5s);
    run_.jfrbpfExit = exit.value_or(-1);
  }

  // What the OOM killer or a crashed sidecar does to jfrbpf.
  void killJfrbpf() {
    jfrbpf_->signal(SIGKILL);
    run_.jfrbpfExit = jfrbpf_->wait(30s).value_or(-1);
  }

  ChildProcess& workload() { return *workload_; }
  WorkloadRun& result() { return run_; }

 private:
  ScratchDir scratch_;
  Jdk jdk_;
  std::vector<std::string> jvmOptions_;
  std::unique_ptr<ChildProcess> workload_;
  std::unique_ptr<ChildProcess> jfrbpf_;
  WorkloadRun run_;
};

std::vector<Jdk> jdks() {
  std::vector<Jdk> out{{"jdk17", kJdkHome}};
  std::string jdk25 = kJdk25Home;
  if (!jdk25.empty() && std::filesystem::exists(jdk25 + "/bin/java")) out.push_back({"jdk25", jdk25});
  return out;
}

class TimingOnJdk : public testing::TestWithParam<Jdk> {
 protected:
  void SetUp() override {
    if (!haveRoot()) GTEST_SKIP() << "needs root for BPF uprobes and attaching to the JVM";
  }
};

TEST_P(TimingOnJdk, CountsTimesAndTracesEveryKindOfMethod) {
  TimingRun run(GetParam(), "timing-" + GetParam().label);
  ASSERT_NO_FATAL_FAILURE(run.startWorkload());
  ASSERT_NO_FATAL_FAILURE(run.startJfrbpf({"--method-timing", kTimingFilter, "--method-trace", kTraceFilter}));
  ASSERT_NO_FATAL_FAILURE(run.runWorkloadAndStop());
  const WorkloadRun& r = run.result();
  ASSERT_EQ(r.jfrbpfExit, 0) << r.jfrbpfOutput;
  EXPECT_EQ(r.workloadOutput.find("VerifyError"), std::string::npos) << r.workloadOutput;
  EXPECT_EQ(r.workloadOutput.find("NoClassDefFoundError"), std::string::npos) << r.workloadOutput;

  Recorded rec = readTimingRecording(run.path("timing.jfr"));
  auto timing = [&](const std::string& key) -> Timing {
    auto it = rec.timings.find(key);
    EXPECT_NE(it, rec.timings.end()) << "no jdk.MethodTiming for " << key;
    return it == rec.timings.end() ? Timing{} : it->second;
  };
  EXPECT_EQ(timing("TimingWorkload.tick()V").invocations, 200000) << "exact, over two rounds";
  EXPECT_EQ(timing("TimingWorkload.fail(I)I").invocations, 1000) << "every call ends in an exception";
  EXPECT_EQ(timing("TimingWorkload$Widget.<init>(I)V").invocations, 500) << "constructors, the class loaded late";
  EXPECT_EQ(timing("TimingWorkload$Annotated.work(I)I").invocations, 300) << "@Timed";
  EXPECT_EQ(rec.timings.count("TimingWorkload$Annotated.plain(I)I"), 0u) << "not annotated, not selected";
  EXPECT_EQ(timing("TimingWorkload$Overloads.f()I").invocations, 100);
  EXPECT_EQ(timing("TimingWorkload$Overloads.f(I)I").invocations, 200);
  EXPECT_EQ(timing("TimingWorkload$Overloads.f(Ljava/lang/String;)I").invocations, 300);
  EXPECT_EQ(timing("TimingWorkload.deepThrow(I)V").invocations, 1020) << "an exception unwinding 51 frames, 20 times";
  EXPECT_EQ(timing("TimingWorkload.brokenConstructors()I").invocations, 1)
      << "timed although 10 constructors inside it never exited";
  EXPECT_EQ(timing("TimingWorkload$BrokenChild.<init>()V").invocations, 0)
      << "a constructor whose super() throws reports no exit (as in JDK 25)";
  EXPECT_EQ(timing("TimingWorkload$BrokenChild.<init>()V").average, INT64_MIN) << "N/A without invocations";
  EXPECT_EQ(timing("TimingWorkload.depth(I)I").invocations, 5 * 201) << "recursion 201 deep, 5 times: every level";
  int64_t resizes = 0;
  for (const auto& [key, t] : rec.timings) {
    if (key.rfind("java/util/HashMap.resize(", 0) == 0) resizes += t.invocations;
  }
  EXPECT_GT(resizes, 0) << "a JDK class, without recursion";
  EXPECT_EQ(timing("seed/Jsr.wide(I)I").invocations, 1) << "a Java 5 class";
  EXPECT_EQ(rec.timings.count("seed/Jsr.withJsr()V"), 0u) << "jsr subroutines are left alone";
  bool jsrNoted = false;
  for (const std::string& note : rec.notes) jsrNoted |= note.find("not instrumented: seed/Jsr::withJsr()V: uses jsr") != std::string::npos;
  EXPECT_TRUE(jsrNoted) << "the recording says why (the class loaded during the recording)";

  Timing nap = timing("TimingWorkload.nap()V");
  ASSERT_GT(r.napAverageNs, 0);
  EXPECT_NEAR(static_cast<double>(nap.average), static_cast<double>(r.napAverageNs), 0.1 * r.napAverageNs)
      << "5 ms sleeps: jfrbpf's average vs the workload's own nanoTime";
  EXPECT_LE(nap.minimum, nap.average);
  EXPECT_GE(nap.maximum, nap.average);
  EXPECT_GE(nap.minimum, 5'000'000);

  bool timingFilterSetting = false, traceFilterSetting = false;
  for (const auto& [key, value] : rec.settings) {
    timingFilterSetting |= key.ends_with("#filter") && value == kTimingFilter;
    traceFilterSetting |= key.ends_with("#filter") && value == kTraceFilter;
  }
  EXPECT_TRUE(timingFilterSetting && traceFilterSetting) << "jdk.ActiveSetting shows both filters";

  size_t failTraces = 0, clinitTraces = 0;
  for (const Trace& t : rec.traces) {
    if (t.method == "TimingWorkload.fail(I)I") {
      ++failTraces;
      ASSERT_FALSE(t.frames.empty());
      EXPECT_EQ(t.frames.front(), "TimingWorkload.main") << "the stack starts at the caller";
      EXPECT_GT(t.duration, 0);
      EXPECT_EQ(t.threadName, "main");
    }
    if (t.method == "TimingWorkload$LateInit.<clinit>()V") {
      ++clinitTraces;
      bool mainBelow = false;
      for (const std::string& f : t.frames) mainBelow |= f == "TimingWorkload.main";
      EXPECT_TRUE(mainBelow) << "a static initializer's trace reaches the code that triggered it";
    }
  }
  EXPECT_EQ(failTraces, 1000u) << "threshold 0: every call, exceptional exits included";
  EXPECT_EQ(clinitTraces, 1u);

  // The JDK's own tools read the events (JDK 17 knows the types only from the file's metadata).
  std::string printed;
  RunResult print = jfrbpf::test::run({jdkTool("jfr"), "print", "--events", "jdk.MethodTiming", run.path("timing.jfr")});
  EXPECT_EQ(print.exitCode, 0) << print.output;
  EXPECT_NE(print.output.find("method = TimingWorkload.tick()"), std::string::npos) << print.output;
  EXPECT_NE(print.output.find("invocations = 200000"), std::string::npos) << print.output;
  RunResult traces = jfrbpf::test::run({jdkTool("jfr"), "print", "--events", "jdk.MethodTrace", run.path("timing.jfr")});
  EXPECT_EQ(traces.exitCode, 0);
  EXPECT_NE(traces.output.find("method = TimingWorkload.fail(int)"), std::string::npos);
  std::string jdk25 = kJdk25Home;
  if (!jdk25.empty()) {
    RunResult view = jfrbpf::test::run({jdk25 + "/bin/jfr", "view", "method-timing", run.path("timing.jfr")});
    EXPECT_EQ(view.exitCode, 0) << view.output;
    EXPECT_NE(view.output.find("TimingWorkload.tick()"), std::string::npos) << view.output;
    EXPECT_NE(view.output.find("200,000"), std::string::npos) << view.output;
    std::cout << view.output;
  }
}

INSTANTIATE_TEST_SUITE_P(Jdks, TimingOnJdk, testing::ValuesIn(jdks()),
                         [](const testing::TestParamInfo<Jdk>& info) { return info.param.label; });

// jdk.MethodTiming of JDK 25 itself and jfrbpf's, on the same calls in the same JVM.
TEST(TimingE2E, AgreesWithJdk25sOwnMethodTiming) {
  if (!haveRoot()) GTEST_SKIP() << "needs root for BPF uprobes and attaching to the JVM";
  std::string jdk25 = kJdk25Home;
  if (jdk25.empty()) GTEST_SKIP() << "no JDK 25 installed";
  const std::string filter = "TimingWorkload::tick;TimingWorkload::nap;TimingWorkload::fail;"
                             "TimingWorkload$Overloads::f;TimingWorkload::deepThrow";
  ScratchDir jdkOut("timing-jdk25-own");
  TimingRun run({"jdk25", jdk25}, "timing-jdk25-compare",
                {"-XX:StartFlightRecording:filename=" + jdkOut.file("jdk.jfr") + ",jdk.MethodTiming#filter=" + filter});
  ASSERT_NO_FATAL_FAILURE(run.startWorkload());
  ASSERT_NO_FATAL_FAILURE(run.startJfrbpf({"--method-timing", filter}));
  ASSERT_NO_FATAL_FAILURE(run.runWorkloadAndStop());
  ASSERT_EQ(run.result().jfrbpfExit, 0) << run.result().jfrbpfOutput;
  run.workload().signal(SIGTERM);  // an orderly exit writes the JDK's recording
  ASSERT_TRUE(run.workload().wait(60s).has_value());

  Recorded ours = readTimingRecording(run.path("timing.jfr"));
  Recorded jdk = readTimingRecording(jdkOut.file("jdk.jfr"));
  struct Expected {
    const char* key;
    int64_t calls;         // as the workload made them
    bool throwsItself;     // JDK 25.0.x counts such a call twice (an exit at its athrow, one in its handler)
  };
  const Expected expected[] = {
      {"TimingWorkload.tick()V", 200000, false},
      {"TimingWorkload.nap()V", 40, false},
      {"TimingWorkload$Overloads.f()I", 100, false},
      {"TimingWorkload$Overloads.f(I)I", 200, false},
      {"TimingWorkload$Overloads.f(Ljava/lang/String;)I", 300, false},
      {"TimingWorkload.fail(I)I", 1000, true},
      {"TimingWorkload.deepThrow(I)V", 1020, true},
  };
  std::printf("%-50s %12s %12s %14s %14s\n", "method", "jdk calls", "jfrbpf calls", "jdk avg ns", "jfrbpf avg ns");
  for (const Expected& e : expected) {
    ASSERT_TRUE(ours.timings.count(e.key)) << e.key;
    ASSERT_TRUE(jdk.timings.count(e.key)) << e.key;
    const Timing& a = jdk.timings[e.key];
    const Timing& b = ours.timings[e.key];
    std::printf("%-50s %12lld %12lld %14lld %14lld\n", e.key, static_cast<long long>(a.invocations),
                static_cast<long long>(b.invocations), static_cast<long long>(a.average),
                static_cast<long long>(b.average));
    EXPECT_EQ(b.invocations, e.calls) << e.key;
    if (!e.throwsItself) {
      EXPECT_EQ(a.invocations, b.invocations) << e.key;
    }
  }
  const Timing& jdkNap = jdk.timings["TimingWorkload.nap()V"];
  const Timing& ourNap = ours.timings["TimingWorkload.nap()V"];
  EXPECT_NEAR(static_cast<double>(ourNap.average), static_cast<double>(jdkNap.average), 0.1 * jdkNap.average);
}

// After the recording the JVM runs its original bytecode again: a later agent session sees the method's
// original length, while the timing session saw the instrumented one. The later session also learns the
// versions the two retransformations replaced (a thread still inside one would run it unnamed otherwise).
TEST(TimingE2E, RemovesInstrumentationWhenTheRecordingStops) {
  if (!haveRoot()) GTEST_SKIP() << "needs root for BPF uprobes and attaching to the JVM";
  TimingRun run({"jdk17", kJdkHome}, "timing-restore");
  ASSERT_NO_FATAL_FAILURE(run.startWorkload());
  pid_t pid = run.result().jvmPid;
  auto tickLength = [](const jvm::JavaModel& model) {
    uint32_t length = 0;
    model.methods().forEachMethod([&](const jvm::JavaMethod& m) {
      if (m.name == "tick" && m.klass->name == kWorkload && m.codeSize != 0) length = m.codeSize;  // newest last
    });
    return length;
  };

  uint32_t original = 0;
  {
    auto before = record::JvmConnection::attach(pid, 60s);
    original = tickLength(before->model());
  }
  ASSERT_GT(original, 0u) << "the agent reports bytecode lengths on this JVM";

  uint32_t instrumented = 0;
  {
    record::BpfSampler sampler(record::SamplerConfig{});
    auto timing = record::JvmConnection::attach(pid, 60s);
    timing::MethodTimingOptions options;
    options.timingFilter = "TimingWorkload::tick";
    timing->startTiming(sampler, options, protocol::kNoVirtualThreadWaits, 0, 64, 120s);
    timing->session().drainUntil([&](const jvm::JavaModel& m) { return tickLength(m) != original; }, 10s);
    instrumented = tickLength(timing->model());
    EXPECT_EQ(timing->model().timedMethods().size(), 1u);
  }  // the channel closes: the agent restores the class
  EXPECT_GT(instrumented, original) << "the timing session saw the hooks in tick()";

  // The agent thread restores before it takes the next session, so this replay already sees the result.
  auto after = record::JvmConnection::attach(pid, 60s);
  EXPECT_EQ(tickLength(after->model()), original) << "tick() has its original bytecode again";
  std::set<uint64_t> tickVersions;
  after->model().methods().forEachMethod([&](const jvm::JavaMethod& m) {
    if (m.name == "tick" && m.klass->name == kWorkload && m.methodPtr != 0) tickVersions.insert(m.methodPtr);
  });
  EXPECT_EQ(tickVersions.size(), 3u) << "the original, the instrumented and the restored tick()";
}

// The recorder killed while the methods are instrumented: its channel to the agent closes, and the agent
// restores the class, as after a normal end, so that no timing stub is called any more.
TEST(TimingE2E, RestoresInstrumentationWhenTheRecorderIsKilled) {
  if (!haveRoot()) GTEST_SKIP() << "needs root for BPF uprobes and attaching to the JVM";
  TimingRun run({"jdk17", kJdkHome}, "timing-killed");
  ASSERT_NO_FATAL_FAILURE(run.startWorkload());
  pid_t pid = run.result().jvmPid;
  auto tickVersions = [](const jvm::JavaModel& model) {
    std::map<uint64_t, uint32_t> lengths;  // Method* -> bytecode length
    model.methods().forEachMethod([&](const jvm::JavaMethod& m) {
      if (m.name == "tick" && m.klass->name == kWorkload && m.methodPtr != 0) lengths[m.methodPtr] = m.codeSize;
    });
    return lengths;
  };
  std::map<uint64_t, uint32_t> before;
  {
    auto connection = record::JvmConnection::attach(pid, 60s);
    before = tickVersions(connection->model());
  }
  ASSERT_EQ(before.size(), 1u);
  const uint32_t original = before.begin()->second;

  ASSERT_NO_FATAL_FAILURE(run.startJfrbpf({"--method-timing", "TimingWorkload::tick"}));
  run.killJfrbpf();
  EXPECT_EQ(run.result().jfrbpfExit, 128 + SIGKILL);

  // The agent restores before it takes the next session, so this replay sees the result.
  auto after = record::JvmConnection::attach(pid, 60s);
  std::map<uint64_t, uint32_t> versions = tickVersions(after->model());
  EXPECT_EQ(versions.size(), 3u) << "the original, the instrumented and the restored tick()";
  uint32_t longest = 0, newestLength = 0;
  for (const auto& [method, length] : versions) longest = std::max(longest, length);
  after->model().methods().forEachMethod([&](const jvm::JavaMethod& m) {
    if (m.name == "tick" && m.klass->name == kWorkload && m.codeSize != 0) newestLength = m.codeSize;  // newest last
  });
  EXPECT_GT(longest, original) << "tick() was instrumented while jfrbpf lived";
  EXPECT_EQ(newestLength, original) << "tick() has its original bytecode again";
}

TEST(TimingE2E, RefusesABadFilterPointingAtTheCharacter) {
  RunResult r = jfrbpf::test::run({jfrbpfBinary(), "record", "-p", "1", "--method-trace", "com.foo.Bar::"}, 30s);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("jfrbpf: invalid --method-trace filter at column"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  com.foo.Bar::\n"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("jfrbpf: jfrbpf:"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace jfrbpf::test
