// `jfrbpf record --all` and `jfrbpf list` as a user runs them on a host with several JVMs: one in its own
// PID and mount namespace (with a private /tmp), one running as an unprivileged user, one started while
// recording, and one that exits mid-recording. Every JVM gets its own valid file with its own Java frames.
// A JVM that does not answer the attach holds up neither the others nor the end, and is recorded with native frames.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <utility>
#include <sstream>
#include <thread>

#include "base/unique_fd.h"
#include "tests/push/loopback_receiver.h"
#include "tests/record/bpf_test_support.h"
#include "tests/record/record_test_support.h"
#include "tests/support/private_tmp.h"
#include "tests/support/readable_paths.h"
#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;

std::string java() { return std::string(kJdkHome) + "/bin/java"; }
std::string demoClasses() { return std::string(kBinaryDir) + "/demo-app/classes"; }
std::string demoLibraries() { return std::string(kBinaryDir) + "/demo-app"; }

// The demo JVM for `seconds`, as the given command prefix runs it (as another user: `otherUser`); waits
// until it is up.
std::unique_ptr<ChildProcess> startDemo(std::vector<std::string> prefix, int seconds, bool otherUser = false) {
  std::vector<std::string> argv = std::move(prefix);
  for (std::string arg : {java(), std::string("-Xmx128m"), "-Djava.library.path=" + demoLibraries(),
                          std::string("-cp"), demoClasses(), std::string("demo.DemoApp"), std::to_string(seconds)}) {
    argv.push_back(std::move(arg));
  }
  if (otherUser) makeJavaPathsReadable(argv);
  auto child = std::make_unique<ChildProcess>(argv, ChildOptions{.captureStderr = true});
  for (int i = 0; i < 100; ++i) {
    auto line = child->readLine(200ms);
    if (line && line->find("DemoApp running, pid") != std::string::npos) return child;
  }
  ADD_FAILURE() << "the demo JVM did not start: " << argv.front();
  return child;
}

// The host pid of the JVM a wrapper (unshare, setpriv) started: the newest java process below it.
pid_t javaBelow(pid_t wrapper) {
  for (int i = 0; i < 50; ++i) {
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream stat(entry.path() / "stat");
      std::string line;
      std::getline(stat, line);
      size_t close = line.rfind(')');
      if (close == std::string::npos || line.find("(java)") == std::string::npos) continue;
      std::istringstream rest(line.substr(close + 2));
      char state;
      pid_t parent = 0;
      rest >> state >> parent;
      if (parent == wrapper || std::stoi(name) == wrapper) return std::stoi(name);
    }
    std::this_thread::sleep_for(100ms);
  }
  return 0;
}

// The files `record --all` wrote into `dir`, by the pid their names start with.
std::map<pid_t, std::string> filesByPid(const std::string& dir) {
  std::map<pid_t, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename();
    files[std::stoi(name.substr(0, name.find('-')))] = entry.path();
  }
  return files;
}

bool hasDemoFrames(const Recorded& recorded) {
  for (const Sample& s : recorded.samples) {
    if (hasFrame(s, "multiplyMatrices", "demo/DemoApp") || hasFrame(s, "updateInventory", "demo/DemoApp")) return true;
  }
  return false;
}

TEST(RecordAll, EveryJvmOnTheHostGetsItsOwnFileWithItsOwnJavaFrames) {
  JFRBPF_REQUIRE_BPF();
  if (access(demoClasses().c_str(), R_OK) != 0) GTEST_SKIP() << "demo app not built";
  ScratchDir dir("record-all");

  auto plain = startDemo({}, 60);
  auto unprivileged = startDemo({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, 60, true);
  // Its own PID and mount namespaces, and a /tmp no other process sees (its attach socket lives there).
  auto contained = startDemo({"unshare", "--pid", "--mount", "--fork", "--kill-child", "--mount-proc", "--propagation", "private",
                              "sh", "-c", privateTmpMounts() + "exec \"$0\" \"$@\""},
                             60);
  pid_t containedPid = javaBelow(contained->pid());
  ASSERT_GT(containedPid, 0);
  // A pod that does not want to be profiled says so in its environment (from a label, by the downward API).
  auto optedOut = startDemo({"env", "JFRBPF_OPT_OUT=1"}, 60);

  // jfrbpf list sees all of them, with the namespace pid and the user of each.
  RunResult list = run({jfrbpfBinary(), "list"});
  ASSERT_EQ(list.exitCode, 0) << list.output;
  EXPECT_NE(list.output.find(std::to_string(unprivileged->pid())), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("nobody"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find(std::to_string(containedPid) + "      1"), std::string::npos)
      << "the contained JVM is pid 1 in its namespace:\n" << list.output;
  EXPECT_NE(list.output.find("opted-out"), std::string::npos) << list.output;

  std::string out = dir.file("jvms");
  // Exits while recording; long enough to be sampled after the attaches of every JVM of a busy host (14 s
  // was not, with two benchmarks and a dozen JVMs of other tests on this 2-CPU VM).
  auto shortLived = startDemo({}, 20);
  ChildProcess recorder({jfrbpfBinary(), "record", "--all", "-o", out}, {.captureStderr = true});
  // Each step waits for what jfrbpf says, not for a time: a busy machine only makes it slower.
  std::string output;
  ASSERT_TRUE(recorder.readUntil("recording JVM " + std::to_string(plain->pid()) + " ", 90s, output)) << output;
  auto lateComer = startDemo({}, 60);  // started while recording
  ASSERT_TRUE(recorder.readUntil("recording JVM " + std::to_string(lateComer->pid()) + " ", 90s, output)) << output;
  ASSERT_TRUE(recorder.readUntil("JVM " + std::to_string(shortLived->pid()) + " exited", 90s, output)) << output;
  std::this_thread::sleep_for(2s);  // the late JVM's busy threads: about 400 samples at 10 ms
  recorder.signal(SIGINT);
  auto code = recorder.wait(120s);
  output += recorder.readAll(1s);
  ASSERT_TRUE(code.has_value());
  ASSERT_EQ(*code, 0) << output;

  // The recording is over: the busy demo JVMs stand still while their files are read (five of them made each
  // `jfr summary` take 6 s).
  PausedProcess pausedPlain(plain->pid()), pausedUnprivileged(unprivileged->pid()), pausedContained(containedPid),
      pausedOptedOut(optedOut->pid()), pausedLate(lateComer->pid());
  std::map<pid_t, std::string> files = filesByPid(out);
  EXPECT_EQ(files.count(optedOut->pid()), 0u) << "the JVM that opted out is not recorded";
  EXPECT_NE(output.find("JVM " + std::to_string(optedOut->pid()) + " (demo.DemoApp) opted out"), std::string::npos)
      << output;
  const std::map<std::string, std::pair<pid_t, ChildProcess*>> jvms = {
      {"plain", {plain->pid(), plain.get()}},
      {"unprivileged", {unprivileged->pid(), unprivileged.get()}},
      {"contained", {containedPid, contained.get()}},
      {"short-lived", {shortLived->pid(), shortLived.get()}},
      {"late", {lateComer->pid(), lateComer.get()}}};
  for (const auto& [role, jvm] : jvms) {
    const auto& [pid, process] = jvm;
    SCOPED_TRACE("the " + role + " JVM, pid " + std::to_string(pid));
    ASSERT_TRUE(files.count(pid)) << output;
    const std::string& file = files[pid];
    EXPECT_NE(file.find("demo.DemoApp"), std::string::npos) << file;
    EXPECT_EQ(run({jdkTool("jfr"), "summary", file}).exitCode, 0) << file;
    Recorded recorded = readRecording(file);
    EXPECT_GT(recorded.samples.size(), 5u) << file << "\n" << output;
    if (!hasDemoFrames(recorded)) {
      ADD_FAILURE() << "no Java frames of the demo in " << file << "\n"
                    << output << "the JVM said:\n"
                    << process->readAll(100ms);
    }
  }
}

// Holds JVM `pid`'s attach listener: HotSpot serves one connection at a time and reads its request without
// a timeout, so a connection that never sends one keeps every other client waiting (as a JVM busy in a long
// safepoint or a slow agent would).
UniqueFd holdAttachListener(pid_t pid) {
  RunResult started = run({jdkTool("jcmd"), std::to_string(pid), "VM.version"});  // starts the listener
  EXPECT_EQ(started.exitCode, 0) << started.output;
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "/tmp/.java_pid%d", pid);
  EXPECT_EQ(connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0) << address.sun_path;
  return fd;
}

TEST(RecordAll, AJvmThatDoesNotAnswerTheAttachHoldsUpNeitherTheOthersNorTheEnd) {
  JFRBPF_REQUIRE_BPF();
  if (access(demoClasses().c_str(), R_OK) != 0) GTEST_SKIP() << "demo app not built";
  ScratchDir dir("record-all-silent");
  auto answering = startDemo({}, 90);
  auto silent = startDemo({}, 90);
  UniqueFd held = holdAttachListener(silent->pid());
  ASSERT_TRUE(held);

  std::string out = dir.file("jvms");
  const auto started = std::chrono::steady_clock::now();
  ChildProcess recorder({jfrbpfBinary(), "record", "--all", "-d", "6s", "-o", out}, {.captureStderr = true});
  std::string output;
  auto waitFor = [&](const std::string& text, std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      auto line = recorder.readLine(200ms);
      if (!line) continue;
      output += *line + "\n";
      if (line->find(text) != std::string::npos) return true;
    }
    return false;
  };
  ASSERT_TRUE(waitFor("recording JVM " + std::to_string(answering->pid()), 30s)) << output;
  auto lateComer = startDemo({}, 90);  // the watcher still finds new JVMs
  ASSERT_TRUE(waitFor("recording JVM " + std::to_string(lateComer->pid()), 30s)) << output;
  ASSERT_TRUE(waitFor("JVM " + std::to_string(silent->pid()) + ": the recording ended before its agent attached", 40s))
      << output;
  // 6 s of recording after at most 5 s of waiting for the first attaches, and the BPF load: far less than
  // the attach's own 30-s timeout, which the end used to wait out.
  EXPECT_LT(std::chrono::steady_clock::now() - started, 25s) << output;
  held = UniqueFd();  // the silent JVM's listener now serves jfrbpf's attach, which the end waits for
  auto code = recorder.wait(60s);
  output += recorder.readAll(1s);
  ASSERT_TRUE(code.has_value()) << output;
  ASSERT_EQ(*code, 0) << output;

  std::map<pid_t, std::string> files = filesByPid(out);
  for (pid_t pid : {answering->pid(), lateComer->pid()}) {
    SCOPED_TRACE("JVM " + std::to_string(pid));
    ASSERT_TRUE(files.count(pid)) << output;
    Recorded recorded = readRecording(files[pid]);
    EXPECT_GT(recorded.samples.size(), 5u) << output;
    EXPECT_TRUE(hasDemoFrames(recorded)) << output;
  }
  // The silent JVM is recorded too, with native frames (its CPU time is there), and its stacks that stop
  // in its Java code say that its Java frames were not known.
  ASSERT_TRUE(files.count(silent->pid())) << output;
  Recorded silentRecording = readRecording(files[silent->pid()]);
  EXPECT_GT(silentRecording.samples.size(), 5u) << output;
  EXPECT_FALSE(hasDemoFrames(silentRecording)) << output;
  size_t marked = 0;
  for (const Sample& s : silentRecording.samples) {
    if (s.truncated && hasFrame(s, "[truncated: JVM agent not attached yet]", "jfrbpf")) ++marked;
  }
  EXPECT_GT(marked, 0u) << output;
}

// A node's recorder meets hostile JVMs among the others, all run by an unprivileged user: a demo JVM whose
// JNI library (where it spends part of its time) is a copy with section headers that claim 900 MiB tables,
// and two processes that pose as JVMs (hostile_jvm): one floods the agent channel and has mounted a FIFO
// over its libjvm.so in its own view, the other answers the attach with 64 MiB. Recorded under the smallest
// memory budget, with full root and with the capabilities `--help` offers, the recording ends on time, the
// recorder stays under its budget, both real JVMs are recorded with their Java frames and the posers with
// their native frames.
class RecordAllHostile : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordAllHostile, AJvmWithALyingLibraryNeitherBloatsTheRecorderNorHidesTheOthers) {
  JFRBPF_REQUIRE_BPF();
  if (access(demoClasses().c_str(), R_OK) != 0) GTEST_SKIP() << "demo app not built";
  ScratchDir dir("record-all-hostile-" + GetParam(), Reach::kOtherUsers);
  const std::filesystem::path own = dir.path() / "hostile";
  std::filesystem::create_directories(own);
  const std::string lyingCopy = (own / "libjfrbpf-demo-native.so").string();
  RunResult copied = run({std::string(kBinaryDir) + "/tests/record/hostile_library_workload",
                          demoLibraries() + "/libjfrbpf-demo-native.so", lyingCopy, "lie"});
  ASSERT_EQ(copied.exitCode, 0) << copied.output;
  std::filesystem::permissions(dir.path(), std::filesystem::perms(0755));
  std::filesystem::permissions(own, std::filesystem::perms(0755));

  auto benign = startDemo({}, 60);
  std::vector<std::string> hostileArgv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", java(),
                                          "-Xmx128m", "-Djava.library.path=" + own.string(), "-cp", demoClasses(),
                                          "demo.DemoApp", "60"};
  makeJavaPathsReadable(hostileArgv);
  ChildProcess hostile(hostileArgv, ChildOptions{.captureStderr = true});
  std::optional<std::string> up;
  for (int i = 0; i < 100 && !(up && up->find("DemoApp running") != std::string::npos); ++i) up = hostile.readLine(200ms);
  ASSERT_TRUE(up && up->find("DemoApp running") != std::string::npos) << "the hostile JVM did not start";
  std::filesystem::copy_file(std::string(kBinaryDir) + "/tests/record/libhostile_spin.so", own / "libjvm.so");
  std::filesystem::permissions(own, std::filesystem::perms(0777));
  std::vector<std::unique_ptr<ChildProcess>> posers;
  for (std::vector<std::string> attack : {std::vector<std::string>{"agent-flood", "fifo"}, {"huge-reply"}}) {
    std::vector<std::string> argv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--pdeathsig=SIGKILL",
                                     "--", readableByOtherUsers(std::string(kBinaryDir) + "/tests/record/hostile_jvm"),
                                     (own / "libjvm.so").string()};
    argv.insert(argv.end(), attack.begin(), attack.end());
    posers.push_back(std::make_unique<ChildProcess>(argv));
    auto ready = posers.back()->readLine(10s);
    ASSERT_TRUE(ready && *ready == "ready") << attack[0] << ": " << (ready ? *ready : "no line");
  }

  std::vector<std::string> argv = {jfrbpfBinary(), "record", "--all", "-d", "8s", "--memory-limit", "128m", "-o",
                                   dir.file("jvms")};
  if (GetParam() == "offered") argv.insert(argv.begin(), {"setpriv", "--bounding-set=-sys_admin,-checkpoint_restore", "--"});
  const auto started = std::chrono::steady_clock::now();
  RunResult r = run(argv, std::chrono::seconds(120), {"JFRBPF_DEBUG=1"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // 8 s of recording, the BPF load (up to ~3 s on a busy VM), the attaches and the stop.
  EXPECT_LT(seconds, 30.0) << r.output;
  const size_t peak = r.output.find("memory   peak ");
  ASSERT_NE(peak, std::string::npos) << r.output;
  // Two demo JVMs and the posers under `record --all` peaked at 56..81 MiB in six runs here; unbounded, the lie
  // would add 900 MiB, the flood and the reply 96.
  EXPECT_LT(std::stoi(r.output.substr(peak + 14)), 128) << r.output.substr(peak, r.output.find('\n', peak) - peak);
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << "no escape sequence from a target reaches the terminal";

  // The recording is over: the busy targets stand still while their files are read.
  PausedProcess pausedBenign(benign->pid()), pausedHostile(hostile.pid());
  std::vector<std::unique_ptr<PausedProcess>> pausedPosers;
  for (const auto& poser : posers) pausedPosers.push_back(std::make_unique<PausedProcess>(poser->pid()));
  std::map<pid_t, std::string> files = filesByPid(dir.file("jvms"));
  for (pid_t pid : {benign->pid(), hostile.pid()}) {
    SCOPED_TRACE(pid == hostile.pid() ? "the hostile JVM" : "the benign JVM");
    ASSERT_TRUE(files.count(pid)) << r.output;
    EXPECT_EQ(run({jdkTool("jfr"), "summary", files[pid]}).exitCode, 0) << files[pid];
    Recorded recorded = readRecording(files[pid]);
    EXPECT_GT(recorded.samples.size(), 5u) << r.output;
    EXPECT_TRUE(hasDemoFrames(recorded)) << r.output;
  }
  for (const auto& poser : posers) {
    SCOPED_TRACE("a poser");
    ASSERT_TRUE(files.count(poser->pid())) << r.output;
    EXPECT_EQ(run({jdkTool("jfr"), "summary", files[poser->pid()]}).exitCode, 0) << files[poser->pid()];
    EXPECT_GT(readRecording(files[poser->pid()]).samples.size(), 5u) << r.output;
    EXPECT_NE(r.output.find("process " + std::to_string(poser->pid()) + ": Java frames unavailable"), std::string::npos)
        << r.output;
  }
}

INSTANTIATE_TEST_SUITE_P(RecordAll, RecordAllHostile, ::testing::Values("root", "offered"));

// Without root, with exactly the capabilities `jfrbpf record --help` lists for another user's JVM (what a
// container policy that drops ALL must add back): the JVM is found, attached, and recorded with its Java
// frames, and nothing on the terminal is a library's complaint about what it may not open.
TEST(RecordAll, TheCapabilitiesHelpListsRecordAnotherUsersJvmWithJavaFrames) {
  JFRBPF_REQUIRE_BPF();
  if (access(demoClasses().c_str(), R_OK) != 0) GTEST_SKIP() << "demo app not built";
  ScratchDir dir("record-all-capabilities");
  auto jvm = startDemo({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, 60, true);
  const std::string caps = "+bpf,+perfmon,+sys_ptrace,+syslog,+dac_read_search,+setuid,+setgid,+kill";
  RunResult r = run({"setpriv", "--inh-caps=-all," + caps, "--ambient-caps=-all," + caps, "--bounding-set=-all," + caps,
                     "--", jfrbpfBinary(), "record", "--all", "-d", "4s", "-o", dir.file("jvms")},
                    std::chrono::seconds(120));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(r.output.find("libbpf:"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Java frames unavailable"), std::string::npos) << r.output;
  std::map<pid_t, std::string> files = filesByPid(dir.file("jvms"));
  ASSERT_TRUE(files.count(jvm->pid())) << r.output;
  Recorded recorded = readRecording(files[jvm->pid()]);
  EXPECT_GT(recorded.samples.size(), 5u) << r.output;
  EXPECT_TRUE(hasDemoFrames(recorded)) << r.output;
}

// The container's seccomp profile (scripts/container/seccomp/jfrbpf.json), applied as a runtime applies it
// (tests/record/seccomp_exec), lets the recorder do all it does in a pod: record --all of a JVM in its own PID,
// network and mount namespaces (the agent channel is made in the JVM's network namespace) with --off-cpu;
// record -p with method timing, traces, rotation and --push to a backend named by its host name (libcurl's
// resolver); dump and list beside it. A copy without bpf() shows the filter is in force.
std::pair<std::string, std::string> loopbackHostName() {
  char host[256] = {};
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  if (::gethostname(host, sizeof host - 1) == 0 && ::getaddrinfo(host, nullptr, &hints, &found) == 0) {
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof text);
    ::freeaddrinfo(found);
    if (std::string(text).starts_with("127.")) return {host, text};
  }
  std::printf("[ note ] this host's name is not a loopback address: the backend is named localhost\n");
  return {"localhost", "127.0.0.1"};
}

std::vector<std::string> underProfile(const std::string& profile, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {std::string(kBinaryDir) + "/tests/record/seccomp_exec", profile, "--"});
  return argv;
}

TEST(RecordAllSeccomp, TheContainerProfileAllowsAllTheRecorderDoes) {
  JFRBPF_REQUIRE_BPF();
  if (access(demoClasses().c_str(), R_OK) != 0) GTEST_SKIP() << "demo app not built";
  ScratchDir dir("record-all-seccomp");
  const std::string profile = std::string(kSourceDir) + "/scripts/container/seccomp/jfrbpf.json";
  auto contained = startDemo({"unshare", "--pid", "--net", "--mount", "--fork", "--kill-child", "--mount-proc",
                              "--propagation", "private", "sh", "-c", privateTmpMounts() + "exec \"$0\" \"$@\""},
                             60);
  const pid_t jvm = javaBelow(contained->pid());
  ASSERT_GT(jvm, 0);

  RunResult all = run(underProfile(profile, {jfrbpfBinary(), "record", "--all", "-d", "4s", "--off-cpu", "-o",
                                             dir.file("all")}),
                      std::chrono::seconds(120));
  ASSERT_EQ(all.exitCode, 0) << all.output;
  EXPECT_EQ(all.output.find("not permitted"), std::string::npos) << all.output;
  EXPECT_EQ(all.output.find("Java frames unavailable"), std::string::npos) << all.output;
  std::map<pid_t, std::string> files = filesByPid(dir.file("all"));
  ASSERT_TRUE(files.count(jvm)) << all.output;
  EXPECT_TRUE(hasDemoFrames(readRecording(files[jvm]))) << all.output;

  // The backend by a name the resolver looks up (libcurl resolves "localhost" itself): this host's, where it
  // is a loopback address.
  const auto [name, address] = loopbackHostName();
  LoopbackReceiver collector(address);
  const std::string pushTo = "otlp=http://" + name + ":" + std::to_string(collector.port());
  ChildProcess recorder(underProfile(profile, {jfrbpfBinary(), "record", "-p", std::to_string(jvm), "-d", "8s",
                                               "--method-timing", "demo.DemoApp::multiplyMatrices", "--method-trace",
                                               "demo.DemoApp::multiplyMatrices", "--rotate", "2s", "-o",
                                               dir.file("one"), "--push", pushTo}),
                        {.captureStderr = true});
  // It says so once its agent has instrumented the method, shortly before it answers dumps.
  std::optional<std::string> line = recorder.readLine(30s);
  ASSERT_TRUE(line && line->find("instrumented 1 class") != std::string::npos) << (line ? *line : "no line");
  RunResult dump;
  for (int attempt = 0; attempt < 50; ++attempt) {
    dump = run(underProfile(profile, {jfrbpfBinary(), "dump", "-o", dir.file("dump.jfr")}));
    if (dump.output.find("no jfrbpf recorder is running") == std::string::npos) break;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(dump.exitCode, 0) << dump.output;
  RunResult dumped = run({jdkTool("jfr"), "summary", dir.file("dump.jfr")});
  EXPECT_EQ(dumped.exitCode, 0) << dumped.output;
  RunResult list = run(underProfile(profile, {jfrbpfBinary(), "list"}));
  EXPECT_EQ(list.exitCode, 0) << list.output;
  EXPECT_NE(list.output.find(std::to_string(jvm)), std::string::npos) << list.output;
  const std::optional<int> code = recorder.wait(60s);
  const std::string output = recorder.readAll(1s);
  EXPECT_EQ(code, 0) << output;
  EXPECT_NE(output.find("timing   1 method in 1 JVM"), std::string::npos) << output;
  EXPECT_EQ(output.find("not permitted"), std::string::npos) << output;
  const size_t rotated = collector.requests().size();
  EXPECT_GE(rotated, 3u) << output;  // 8 s in 2-s files, each delivered
  EXPECT_NE(output.find("pushed   " + pushTo + ": " + std::to_string(rotated) + " delivered, 0 pending, 0 failed"),
            std::string::npos)
      << output;

  std::string withoutBpf;
  {
    std::ifstream in(profile);
    std::stringstream text;
    text << in.rdbuf();
    withoutBpf = text.str();
  }
  const size_t bpf = withoutBpf.find("\"bpf\", ");
  ASSERT_NE(bpf, std::string::npos);
  withoutBpf.erase(bpf, 7);
  std::ofstream(dir.file("without-bpf.json")) << withoutBpf;
  RunResult refused = run(underProfile(dir.file("without-bpf.json"),
                                       {jfrbpfBinary(), "record", "-p", std::to_string(jvm), "-d", "1s", "-o",
                                        dir.file("refused.jfr")}));
  EXPECT_NE(refused.exitCode, 0) << refused.output;
  EXPECT_NE(refused.output.find("not permitted"), std::string::npos) << refused.output;
}

}  // namespace
}  // namespace jfrbpf::test
