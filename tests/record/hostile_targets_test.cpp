// Targets that attack the recorder (issue: a node's profiler reads what unprivileged processes control):
// each runs as an unprivileged user against the real binary, with full root and with the capabilities
// `jfrbpf --help` offers, and the recording must end on time with a valid file.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "tests/record/bpf_test_support.h"
#include "tests/record/record_test_support.h"
#include "tests/support/readable_paths.h"
#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {
namespace {

using Clock = std::chrono::steady_clock;

// Run by an unprivileged user: copied where it can read them when the build tree is out of its reach.
std::string hostileWorkload() {
  return readableByOtherUsers(std::string(kBinaryDir) + "/tests/record/hostile_library_workload");
}
std::string hostileLibrary() { return readableByOtherUsers(std::string(kBinaryDir) + "/tests/record/libhostile_spin.so"); }
std::string hostileJvm() { return readableByOtherUsers(std::string(kBinaryDir) + "/tests/record/hostile_jvm"); }

const passwd* unprivilegedUser() { return getpwnam("nobody"); }

// The recorder as `--help` offers to run it without root's other powers: no CAP_SYS_ADMIN (so no
// /proc/PID/map_files) and no CAP_CHECKPOINT_RESTORE.
std::vector<std::string> withCapabilities(const std::string& capabilities, std::vector<std::string> argv) {
  if (capabilities == "offered") {
    argv.insert(argv.begin(), {"setpriv", "--bounding-set=-sys_admin,-checkpoint_restore", "--"});
  }
  return argv;
}

class HostileTargets : public ::testing::TestWithParam<std::string> {};

// hostile_library_workload in `mode`, run by an unprivileged user in a directory of its own under `dir`.
std::unique_ptr<ChildProcess> startHostileTarget(const std::string& mode, const ScratchDir& dir, const passwd& user) {
  const std::filesystem::path own = dir.path() / "target";
  std::filesystem::create_directories(own);
  EXPECT_EQ(::chown(own.c_str(), user.pw_uid, user.pw_gid), 0);
  auto target = std::make_unique<ChildProcess>(std::vector<std::string>{
      "setpriv", "--reuid=" + std::to_string(user.pw_uid), "--regid=" + std::to_string(user.pw_gid), "--clear-groups",
      "--pdeathsig=SIGKILL", "--", hostileWorkload(), hostileLibrary(), own.string(), mode});
  auto ready = target->readLine(std::chrono::seconds(10));
  EXPECT_TRUE(ready && *ready == "ready") << (ready ? *ready : "no line");
  return target;
}

// Records `target` at 1 ms with `options` (for 2 s unless they say otherwise), with JFRBPF_DEBUG for the memory
// line, with `capabilities` as GetParam() says, and checks that
// the recording ended on time with a valid file that has the target's samples.
RunResult recordHostileTarget(const ChildProcess& target, const std::string& out, const std::string& capabilities,
                              const std::vector<std::string>& options = {"-d", "2s"}) {
  const auto started = Clock::now();
  std::vector<std::string> argv = {jfrbpfBinary(), "record", "-p", std::to_string(target.pid()), "--interval", "1ms",
                                   "-o", out};
  argv.insert(argv.end(), options.begin(), options.end());
  RunResult r = run(withCapabilities(capabilities, argv), std::chrono::seconds(60), {"JFRBPF_DEBUG=1"});
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  EXPECT_EQ(r.exitCode, 0) << r.output;
  // 2 s of recording plus start-up (BPF load and verification: up to ~3 s on a busy VM) and the stop.
  EXPECT_LT(seconds, 15.0) << r.output;
  if (r.exitCode != 0) return r;

  Recorded recorded = readRecording(out);
  size_t inTarget = 0;
  for (const Sample& s : recorded.samples) inTarget += s.osThreadId == target.pid();
  // A spinning thread, at 1 ms: how many depends on the CPU the machine gives it (400 beside a soak's five
  // JVMs on 2 CPUs, 1,900 on a quiet one); that it is recorded does not.
  EXPECT_GT(inTarget, 20u);
  RunResult summary = run({jdkTool("jfr"), "summary", out});
  EXPECT_EQ(summary.exitCode, 0) << summary.output;
  return r;
}

// The "memory   peak N MiB" line of a JFRBPF_DEBUG run.
int peakMebibytes(const RunResult& r) {
  const size_t peak = r.output.find("memory   peak ");
  return peak == std::string::npos ? -1 : std::stoi(r.output.substr(peak + 14));
}

// The target maps a library and mounts a FIFO over its path in a mount namespace of its own: opening that
// path for reading would block until a writer comes, and the recorder reads the files behind the mappings
// it samples in (by that path when it may not open /proc/PID/map_files).
TEST_P(HostileTargets, ALibrarySwappedForAFifoCannotHoldTheRecordingUp) {
  JFRBPF_REQUIRE_BPF();
  const passwd* user = unprivilegedUser();
  ASSERT_NE(user, nullptr);
  ScratchDir dir("hostile-fifo-" + GetParam(), Reach::kOtherUsers);
  std::unique_ptr<ChildProcess> target = startHostileTarget("fifo", dir, *user);
  struct stat planted {};
  const std::string inItsView =
      "/proc/" + std::to_string(target->pid()) + "/root" + (dir.path() / "target" / "libhostile.so").string();
  ASSERT_EQ(::lstat(inItsView.c_str(), &planted), 0);
  ASSERT_TRUE(S_ISFIFO(planted.st_mode)) << "a FIFO where the library was, in the target's view";
  recordHostileTarget(*target, dir.file("hostile.jfr"), GetParam());
}

// The target runs in a library whose section headers claim 900 MiB tables, backed by a file of that length
// that is a hole: a reader that trusts them reads it all into memory (the recorder went from 35 MB to 930
// MB before it bounded its reads).
TEST_P(HostileTargets, ALibraryWithLyingSectionHeadersCannotBloatTheRecorder) {
  JFRBPF_REQUIRE_BPF();
  const passwd* user = unprivilegedUser();
  ASSERT_NE(user, nullptr);
  ScratchDir dir("hostile-lying-elf-" + GetParam(), Reach::kOtherUsers);
  std::unique_ptr<ChildProcess> target = startHostileTarget("lying-elf", dir, *user);
  RunResult r = recordHostileTarget(*target, dir.file("hostile.jfr"), GetParam());
  // The recorder of one native target peaks at 33 MiB here (BPF rings, kernel symbols); the lie would add 900.
  const int peak = peakMebibytes(r);
  EXPECT_GT(peak, 0) << r.output;
  EXPECT_LT(peak, 128) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Record, HostileTargets, ::testing::Values("root", "offered"));

// A process that poses as a JVM (hostile_jvm) and attacks through the attach protocol or the agent channel,
// as an unprivileged user: each attack costs it its Java frames (it has none) and the recording goes on with
// native frames, on time, under the smallest memory budget.
struct JvmAttack {
  std::string mode;
  std::string said;  // what the recorder says of it
};

void PrintTo(const JvmAttack& attack, std::ostream* os) { *os << attack.mode; }

class HostileJvms : public ::testing::TestWithParam<std::tuple<JvmAttack, std::string>> {};

TEST_P(HostileJvms, AnAttackThroughTheAttachOrTheAgentChannelCostsOnlyItsJavaFrames) {
  JFRBPF_REQUIRE_BPF();
  const auto& [attack, capabilities] = GetParam();
  const passwd* user = unprivilegedUser();
  ASSERT_NE(user, nullptr);
  ScratchDir dir("hostile-jvm-" + attack.mode + "-" + capabilities, Reach::kOtherUsers);
  const std::filesystem::path own = dir.path() / "target";
  std::filesystem::create_directories(own);
  std::filesystem::copy_file(hostileLibrary(), own / "libjvm.so");
  ASSERT_EQ(::chown(own.c_str(), user->pw_uid, user->pw_gid), 0);
  std::filesystem::permissions(dir.path(), std::filesystem::perms(0755));
  ChildProcess target({"setpriv", "--reuid=" + std::to_string(user->pw_uid), "--regid=" + std::to_string(user->pw_gid),
                       "--clear-groups", "--pdeathsig=SIGKILL", "--", hostileJvm(), (own / "libjvm.so").string(),
                       attack.mode});
  auto ready = target.readLine(std::chrono::seconds(10));
  ASSERT_TRUE(ready && *ready == "ready") << (ready ? *ready : "no line");

  // 4 s: a flood reaches a JVM's share of 128 MiB (32 MiB) in about 2 s here.
  RunResult r = recordHostileTarget(target, dir.file("hostile.jfr"), capabilities,
                                    {"-d", "4s", "--memory-limit", "128m"});
  EXPECT_NE(r.output.find("Java frames unavailable"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(attack.said), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << "no escape sequence from the target reaches the terminal";
  // One native target peaks at 33 MiB here; a flood that the budget did not stop would pass 128.
  const int peak = peakMebibytes(r);
  EXPECT_GT(peak, 0) << r.output;
  EXPECT_LT(peak, 128) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Record, HostileJvms,
    ::testing::Combine(::testing::Values(JvmAttack{"huge-reply", "reply over 4 MiB"},
                                         JvmAttack{"garbled-reply", "does not start with a status line"},
                                         JvmAttack{"agent-flood", "more than 32 MiB of metadata"},
                                         JvmAttack{"agent-garbage", "above the limit"}),
                       ::testing::Values("root", "offered")),
    [](const auto& info) {
      std::string name = std::get<0>(info.param).mode + "_" + std::get<1>(info.param);
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

// Recordings hold other users' stacks, thread names and classes: private files in private directories, and
// under sudo the invoking user's, handed over before the file gets its name.
TEST(PrivateOutputs, RecordingsAreTheirOwnersAloneAndNoLinkIsFollowed) {
  JFRBPF_REQUIRE_BPF();
  const passwd* user = unprivilegedUser();
  ASSERT_NE(user, nullptr);
  ScratchDir dir("private-outputs");
  ChildProcess workload({threadsWorkload()});
  ASSERT_EQ(readyThreads(workload).size(), 4u);
  const std::string pid = std::to_string(workload.pid());
  const std::vector<std::string> sudoEnv = {"SUDO_UID=" + std::to_string(user->pw_uid),
                                            "SUDO_GID=" + std::to_string(user->pw_gid)};

  const std::string file = dir.file("mine.jfr");
  RunResult r = run({jfrbpfBinary(), "record", "-p", pid, "-d", "1s", "-o", file}, std::chrono::seconds(60), sudoEnv);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, user->pw_uid) << "under sudo, the invoking user's";

  const std::string rotated = dir.file("rotated");
  r = run({jfrbpfBinary(), "record", "-p", pid, "-d", "2s", "--rotate", "1s", "-o", rotated}, std::chrono::seconds(60),
          sudoEnv);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  ASSERT_EQ(::stat(rotated.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(st.st_uid, user->pw_uid);
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(rotated)) {
    ASSERT_EQ(::stat(entry.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u) << entry.path();
    EXPECT_EQ(st.st_uid, user->pw_uid) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 2u);

  // A directory name someone made a link to elsewhere is refused, and nothing is written there.
  const std::filesystem::path elsewhere = dir.path() / "elsewhere";
  std::filesystem::create_directories(elsewhere);
  std::filesystem::create_directory_symlink(elsewhere, dir.path() / "link");
  r = run({jfrbpfBinary(), "record", "-p", pid, "-d", "1s", "--rotate", "1s", "-o", dir.file("link")});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("symbolic link"), std::string::npos) << r.output;
  r = run({jfrbpfBinary(), "record", "-p", pid, "-d", "1s", "--rotate", "1s", "-o", dir.file("link") + "/"});
  EXPECT_EQ(r.exitCode, 2) << "a trailing slash follows no link either:\n" << r.output;
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));
}

}  // namespace
}  // namespace jfrbpf::test
