// Targets that attack the recorder (issue: a node's profiler reads what unprivileged processes control):
// each runs as an unprivileged user against the real binary, with full root and with the capabilities
// `jfrbpf --help` offers, and the recording must end on time with a valid file.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "tests/record/bpf_test_support.h"
#include "tests/record/record_test_support.h"
#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {
namespace {

using Clock = std::chrono::steady_clock;

std::string hostileWorkload() { return std::string(kBinaryDir) + "/tests/record/hostile_library_workload"; }
std::string hostileLibrary() { return std::string(kBinaryDir) + "/tests/record/libhostile_spin.so"; }

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

// The target maps a library and mounts a FIFO over its path in a mount namespace of its own: opening that
// path for reading would block until a writer comes, and the recorder reads the files behind the mappings
// it samples in (by that path when it may not open /proc/PID/map_files).
TEST_P(HostileTargets, ALibrarySwappedForAFifoCannotHoldTheRecordingUp) {
  JFRBPF_REQUIRE_BPF();
  const passwd* user = unprivilegedUser();
  ASSERT_NE(user, nullptr);
  ScratchDir dir("hostile-fifo-" + GetParam());
  const std::filesystem::path own = dir.path() / "target";
  std::filesystem::create_directories(own);
  ASSERT_EQ(::chown(own.c_str(), user->pw_uid, user->pw_gid), 0);
  ChildProcess target({"setpriv", "--reuid=" + std::to_string(user->pw_uid), "--regid=" + std::to_string(user->pw_gid),
                       "--clear-groups", "--pdeathsig=SIGKILL", "--", hostileWorkload(), hostileLibrary(), own.string(),
                       "fifo"});
  auto ready = target.readLine(std::chrono::seconds(10));
  ASSERT_TRUE(ready && *ready == "ready") << (ready ? *ready : "no line");
  struct stat planted {};
  const std::string inItsView = "/proc/" + std::to_string(target.pid()) + "/root" + (own / "libhostile.so").string();
  ASSERT_EQ(::lstat(inItsView.c_str(), &planted), 0);
  ASSERT_TRUE(S_ISFIFO(planted.st_mode)) << "a FIFO where the library was, in the target's view";

  const std::string out = dir.file("hostile.jfr");
  const auto started = Clock::now();
  RunResult r = run(withCapabilities(GetParam(), {jfrbpfBinary(), "record", "-p", std::to_string(target.pid()), "-d",
                                                  "2s", "--interval", "1ms", "-o", out}),
                    std::chrono::seconds(60));
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // 2 s of recording plus start-up (BPF load and verification: up to ~3 s on a busy VM) and the stop.
  EXPECT_LT(seconds, 15.0) << r.output;

  Recorded recorded = readRecording(out);
  size_t inTarget = 0;
  for (const Sample& s : recorded.samples) inTarget += s.osThreadId == target.pid();
  EXPECT_GT(inTarget, 500u) << "2 s of a spinning thread at 1 ms";
  RunResult summary = run({jdkTool("jfr"), "summary", out});
  EXPECT_EQ(summary.exitCode, 0) << summary.output;
}

INSTANTIATE_TEST_SUITE_P(Record, HostileTargets, ::testing::Values("root", "offered"));

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
