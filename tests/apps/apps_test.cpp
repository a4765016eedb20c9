// Real applications that nobody in this project wrote, from Debian's packages, profiled as a user would: a
// plain `java` (no PreserveFramePointer, no flags), jfrbpf attached while the application is under load.
// For each, on JDK 17 or 25 (two of each): the stacks of Java threads reach their thread's root, frames the JVM has a
// name for are named, and the samples stand for each thread's CPU time as the kernel accounted it.
//   jetty   Jetty 9 serving a JSP (sorting and regex matching) under wrk's load
//   h2      the H2 database server running SQL (grouping, joins, sorting) for a client over TCP
//   groovy  a Groovy script (closures, dynamic dispatch, collections) on Groovy's runtime
//   jruby   a Ruby program on JRuby (deep invokedynamic stacks)
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>

#include "tests/java_e2e/printed_samples.h"
#include "tests/java_e2e/workloads.h"
#include "userspace/proc/process_dir.h"
#include "userspace/proc/schedstat.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;

const std::string kAppSources = std::string(kSourceDir) + "/tests/apps";
constexpr const char* kJettyHome = "/usr/share/jetty9";
constexpr const char* kH2Jar = "/usr/share/java/h2.jar";
constexpr const char* kGroovyJar = "/usr/share/java/groovy-all.jar";
constexpr const char* kWrk = "/usr/bin/wrk";
constexpr const char* kJruby = "/usr/bin/jruby";

// A local port nothing listens on now.
int freePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

// The first line of what the server at `port` answers to `request`, "" when it does not answer.
std::string firstLineOfAnswer(int port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  std::string line;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    if (request.empty() || write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[256];
      ssize_t got = request.empty() ? 1 : read(fd, buffer, sizeof(buffer));
      if (got > 0) line = request.empty() ? "connected" : std::string(buffer, static_cast<size_t>(got));
    }
  }
  close(fd);
  return line.substr(0, line.find('\r'));
}

// Polls until `ready()` or the deadline; true if it became ready.
bool waitUntil(const std::function<bool()>& ready, std::chrono::seconds deadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (ready()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

// Each thread's CPU time now, as the kernel accounts it.
std::map<int64_t, double> threadCpuNs(pid_t pid) {
  std::map<int64_t, double> cpu;
  for (pid_t tid : proc::listTasks(pid)) {
    if (auto schedstat = proc::readSchedstat(pid, tid)) cpu[tid] = static_cast<double>(schedstat->onCpuNs);
  }
  return cpu;
}

// One application under load: its JVM (the process profiled) and whatever drives it.
struct RunningApp {
  std::unique_ptr<ChildProcess> jvm;
  std::unique_ptr<ChildProcess> load;  // a separate process (wrk, a client JVM), not profiled
  // Run once the recording is under way: more load, which makes the application start threads.
  std::function<void(RunningApp&)> duringRecording;
  std::unique_ptr<ChildProcess> moreLoad;
  std::string skipReason;
};

RunningApp startJetty(int jdk, const ScratchDir& dir) {
  RunningApp app;
  if (access((std::string(kJettyHome) + "/start.jar").c_str(), R_OK) != 0 || access(kWrk, X_OK) != 0) {
    app.skipReason = "Debian's jetty9 and wrk are not installed (scripts/setup installs them)";
    return app;
  }
  std::filesystem::copy(kAppSources + "/jetty", dir.path() / "base", std::filesystem::copy_options::recursive);
  const int port = freePort();
  app.jvm = std::make_unique<ChildProcess>(
      std::vector<std::string>{javaBinary(jdk), "-Djava.io.tmpdir=" + dir.path().string(), "-jar",
                               std::string(kJettyHome) + "/start.jar", std::string("jetty.home=") + kJettyHome,
                               "jetty.base=" + (dir.path() / "base").string(), "jetty.http.port=" + std::to_string(port)},
      ChildOptions{.captureStderr = true});
  const std::string get = "GET /app/index.jsp?warm HTTP/1.0\r\nHost: localhost\r\n\r\n";
  EXPECT_TRUE(waitUntil([&] { return firstLineOfAnswer(port, get).ends_with("200 OK"); }, 60s))
      << "Jetty did not serve the JSP";
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/app/index.jsp?load";
  app.load = std::make_unique<ChildProcess>(std::vector<std::string>{kWrk, "-t1", "-c4", "-d60s", url});
  // More connections during the recording than the pool has threads: Jetty starts threads for them then.
  app.duringRecording = [url](RunningApp& running) {
    running.moreLoad = std::make_unique<ChildProcess>(std::vector<std::string>{kWrk, "-t1", "-c24", "-d60s", url});
  };
  return app;
}

RunningApp startH2(int jdk, const ScratchDir& dir) {
  RunningApp app;
  if (access(kH2Jar, R_OK) != 0) {
    app.skipReason = "Debian's libh2-java is not installed (scripts/setup installs it)";
    return app;
  }
  const int port = freePort();
  app.jvm = std::make_unique<ChildProcess>(
      std::vector<std::string>{javaBinary(jdk), "-cp", kH2Jar, "org.h2.tools.Server", "-tcp", "-tcpPort",
                               std::to_string(port), "-ifNotExists"},
      ChildOptions{.captureStderr = true});
  EXPECT_TRUE(waitUntil([&] { return !firstLineOfAnswer(port, "").empty(); }, 60s)) << "H2 did not listen";
  const std::string url = "jdbc:h2:tcp://127.0.0.1:" + std::to_string(port) + "/mem:apps;DB_CLOSE_DELAY=-1";
  auto client = [&](const std::string& script) {
    return std::vector<std::string>{javaBinary(jdk), "-cp", kH2Jar, "org.h2.tools.RunScript", "-url", url,
                                    "-user", "sa", "-script", script};
  };
  RunResult setup = run(client(kAppSources + "/h2/setup.sql"));
  EXPECT_EQ(setup.exitCode, 0) << setup.output;
  // The client's rounds of queries: far more than the recording lasts (the client is killed then).
  std::ifstream round(kAppSources + "/h2/query.sql");
  std::string text((std::istreambuf_iterator<char>(round)), std::istreambuf_iterator<char>());
  std::ofstream load(dir.file("load.sql"));
  for (int i = 0; i < 2000; ++i) load << text;
  load.close();
  app.load = std::make_unique<ChildProcess>(client(dir.file("load.sql")));
  return app;
}

// A script that runs in the JVM itself and announces "ready" once warm.
RunningApp startScript(std::vector<std::string> argv, std::vector<std::string> env = {}) {
  RunningApp app;
  app.jvm = std::make_unique<ChildProcess>(argv, ChildOptions{.captureStderr = true, .extraEnv = std::move(env)});
  for (;;) {
    auto line = app.jvm->readLine(60s);
    EXPECT_TRUE(line.has_value()) << "the script never said it was ready";
    if (!line || *line == "ready") break;
  }
  return app;
}

RunningApp startGroovy(int jdk, const ScratchDir&) {
  if (access(kGroovyJar, R_OK) != 0) return {.skipReason = "Debian's groovy is not installed (scripts/setup installs it)"};
  return startScript({javaBinary(jdk), "-cp", kGroovyJar, "groovy.ui.GroovyMain",
                      kAppSources + "/groovy/workload.groovy", "20"});
}

RunningApp startJruby(int jdk, const ScratchDir&) {
  if (access(kJruby, X_OK) != 0) return {.skipReason = "Debian's jruby is not installed (scripts/setup installs it)"};
  // Debian's launcher execs the JVM in its own process, so its pid is the JVM's.
  return startScript({kJruby, kAppSources + "/jruby/workload.rb", "20"},
                     {"JAVACMD=" + javaBinary(jdk), "JAVA_HOME=" + jdkHome(jdk)});
}

using AppStarter = RunningApp (*)(int jdk, const ScratchDir& dir);

struct App {
  const char* name;
  AppStarter start;
  double completePercent;  // of Java threads' samples that reach their root, at least
};

void PrintTo(const App& app, std::ostream* out) { *out << app.name; }

// Measured 99.90-100 % (by count): a walk that fails counts as many times as the periods its sample stands for
// (H2 on JDK 17 in a CI run: 2 walks ending at a compiled frame whose caller is the interpreter, 6 of 5,746
// samples). Jetty on JDK 17, its handlers compiled while wrk loads it and its pool starting threads: 99.96-100 %
// in 20 runs beside builds (2026-11-29); before the walker knew adapters, vtable and itable stubs, C1's runtime
// stubs, interpreter entries and returns caught half built, and clone's return: 99.92-99.99 % quieter, 99.84-100 %
// busier, 3 runs of 10 below 99.9 % (issue #45).
const App kApps[] = {{"jetty", startJetty, 99.9}, {"h2", startH2, 99.8}, {"groovy", startGroovy, 99.8},
                     {"jruby", startJruby, 99.8}};

// A Java thread's sample is complete when it was walked to the thread's first frame: libc's clone3 (every
// thread the JVM starts, the one running main() included) or _start.
bool complete(const JfrSample& s) {
  if (s.failed || s.truncated || s.frames.empty()) return false;
  const JfrFrame& bottom = s.frames.back();
  return bottom.className == "libc.so.6" && (bottom.method == "clone3" || bottom.method == "_start");
}

class RealApp : public ::testing::TestWithParam<std::tuple<App, int>> {};

TEST_P(RealApp, StacksAreCompleteAndSamplesStandForEachThreadsCpuTime) {
  const auto& [app, jdk] = GetParam();
  JAVA_E2E_REQUIRE(jdk);
  ScratchDir dir(std::string("app-") + app.name + "-" + std::to_string(jdk));
  RunningApp running = app.start(jdk, dir);
  if (!running.skipReason.empty()) GTEST_SKIP() << running.skipReason;
  ASSERT_FALSE(HasFailure());
  const pid_t pid = running.jvm->pid();
  std::this_thread::sleep_for(2s);  // the load's first moments: the hot code compiled before the recording

  std::map<int64_t, double> before = threadCpuNs(pid);
  std::string out = dir.file("app.jfr");
  ChildProcess recorder({jfrbpfBinary(), "record", "-p", std::to_string(pid), "-d", "6s", "--interval", "1ms", "-o", out},
                        {.captureStderr = true});
  if (running.duringRecording) {
    std::this_thread::sleep_for(3s);  // the attach and a second or two of recording
    running.duringRecording(running);
  }
  std::optional<int> code = recorder.wait(120s);
  std::string output = recorder.readAll(1s);
  std::map<int64_t, double> after = threadCpuNs(pid);
  running.load.reset();  // the machine to the checks below
  running.moreLoad.reset();
  PausedProcess paused(pid);  // Groovy's and JRuby's scripts go on computing
  ASSERT_EQ(code, std::optional<int>(0)) << output;
  const std::string label = std::string(app.name) + " on JDK " + std::to_string(jdk);

  // Stacks, as the JDK's own `jfr` prints them.
  std::vector<JfrSample> samples = printedSamples(out);
  std::vector<const JfrSample*> javaThreads;
  for (const JfrSample& s : samples) {
    if (s.javaThreadId != 0) javaThreads.push_back(&s);
  }
  ASSERT_GE(javaThreads.size(), 1000u) << label << ": too few samples of Java threads to judge";
  EXPECT_GE(percentWithout(javaThreads,
                           [](const JfrSample& s) { return complete(s) ? std::string() : s.describe(); },
                           label + ": Java threads' samples that reach the thread's root"),
            app.completePercent);
  constexpr double kNamedPercent = 99.8;  // Jetty: 99.91-100 % in the 20 runs above
  EXPECT_GE(percentWithout(javaThreads,
                           [](const JfrSample& s) -> std::string {
                             for (const JfrFrame& f : s.frames) {
                               if (isUnresolved(f)) return "unnamed frame " + f.name();
                             }
                             return "";
                           },
                           label + ": Java threads' samples whose frames all have names"),
            kNamedPercent);

  // CPU time, as the kernel accounted it: over the recording (jfrbpf.ThreadCPUTime, read as sampling starts
  // and stops), which must lie within the test's own reads around the whole run. The samples stand for it
  // read by weight (samplingPeriod) and by count (what JMC, IntelliJ, Pyroscope and `jfr view` do).
  Recorded recorded = readRecording(out);
  std::map<int64_t, double> countedNs;  // samples and lost samples, one period (1 ms) each
  for (const Sample& s : recorded.samples) countedNs[s.osThreadId] += 1e6;
  for (const auto& [tid, lost] : recorded.lostByThread) countedNs[tid] += 1e6 * static_cast<double>(lost);
  double kernelTotal = 0, sampledTotal = 0, countedTotal = 0, otherSampled = 0;
  size_t started = 0;  // threads that started during the recording
  for (const auto& [tid, kernel] : recorded.kernelCpuNsByThread) {
    kernelTotal += static_cast<double>(kernel);
    sampledTotal += static_cast<double>(recorded.cpuNsByThread[tid]);
    countedTotal += countedNs[tid];
    const double earlier = before.count(tid) ? before.at(tid) : 0;
    if (!before.count(tid)) ++started;
    EXPECT_LE(static_cast<double>(kernel), after[tid] - earlier + 1e6) << label << ": thread " << tid;
  }
  if (running.duringRecording) EXPECT_GT(started, 0u) << label << ": the second client's thread";
  for (const auto& [tid, sampled] : recorded.cpuNsByThread) {
    if (!recorded.kernelCpuNsByThread.count(tid)) otherSampled += static_cast<double>(sampled);
  }
  std::printf("[ figure ] %s: %zu threads (%zu started while recording); the kernel accounted %.1f ms, samples stand "
              "for %.1f ms (%+.2f %%), counted %.1f ms (%+.2f %%); %.1f ms sampled in threads that ended before the "
              "recording\n",
              label.c_str(), recorded.kernelCpuNsByThread.size(), started, kernelTotal / 1e6, sampledTotal / 1e6,
              100 * (sampledTotal / kernelTotal - 1), countedTotal / 1e6, 100 * (countedTotal / kernelTotal - 1),
              otherSampled / 1e6);
  // Quiet, the applications use 6-10 s of CPU over the 6 s; beside six CPU hogs (load 8) 1.5-6 s.
  ASSERT_GT(kernelTotal, 1e9) << label << ": the application hardly ran";
  EXPECT_NEAR(sampledTotal / kernelTotal, 1.0, 0.01) << label;
  EXPECT_NEAR(countedTotal / kernelTotal, 1.0, 0.01) << label << ": by count";
  // Each thread's samples against its own CPU time, in percent of the process's: a thread's shortfall does not
  // show as every other thread's excess, as it would in shares. HotSpot's VM Thread and G1 Service run in
  // microsecond bursts that their clocks mostly miss, and what they use after their last overflow is in no
  // sample (docs/limits.md). 20 runs of H2 on JDK 17 (2026-11-29): such a thread short by 0.02-0.47 % of the
  // process's CPU time (at most 28 ms of 4.8 s; every other thread within 0.1 %), where shares moved by up to
  // 0.64 pp, its deficit summed onto the busy thread's share.
  constexpr double kThreadPercent = 0.75;
  double largestDiff = 0, largestCountedDiff = 0;
  for (const auto& [tid, kernel] : recorded.kernelCpuNsByThread) {
    double diff = 100 * (static_cast<double>(recorded.cpuNsByThread[tid]) - static_cast<double>(kernel)) / kernelTotal;
    double countedDiff = 100 * (countedNs[tid] - static_cast<double>(kernel)) / kernelTotal;
    largestDiff = std::max(largestDiff, std::abs(diff));
    largestCountedDiff = std::max(largestCountedDiff, std::abs(countedDiff));
    EXPECT_NEAR(diff, 0, kThreadPercent) << label << ": thread " << tid << "'s samples against its CPU time";
    EXPECT_NEAR(countedDiff, 0, kThreadPercent) << label << ": thread " << tid << "'s samples, by count";
  }
  std::printf("[ figure ] %s: largest difference of a thread's samples from its CPU time %.2f %%, by count %.2f %% "
              "(of the process's CPU time)\n",
              label.c_str(), largestDiff, largestCountedDiff);
}

std::string appTestName(const ::testing::TestParamInfo<std::tuple<App, int>>& info) {
  return std::string(std::get<0>(info.param).name) + "_Jdk" + std::to_string(std::get<1>(info.param));
}

// Each application on one JDK, two on each: the test's body is the same on both, and what differs between
// JDK 17 and 25 in the walks (frame layouts, entry barriers, hidden classes) is covered on both JDKs by the
// tests of tests/java_e2e. One JDK each takes the group from 226 s to 115 s of the suite (CI, 2026-11-28).
// Jetty (threads started while recording) and H2 on 17, Groovy and JRuby (invokedynamic, hidden classes) on 25.
INSTANTIATE_TEST_SUITE_P(Apps, RealApp,
                         ::testing::Values(std::make_tuple(kApps[0], 17), std::make_tuple(kApps[1], 17),
                                           std::make_tuple(kApps[2], 25), std::make_tuple(kApps[3], 25)),
                         appTestName);

}  // namespace
}  // namespace jfrbpf::test
