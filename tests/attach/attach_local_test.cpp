// Attach building blocks exercised on ordinary local processes (no JVM): identification errors, per-thread
// credentials, and agent staging into a process's /tmp (confined path lookups are tested in tests/proc).
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "tests/attach/test_processes.h"
#include "userspace/attach/agent_staging.h"
#include "userspace/attach/hotspot_vm.h"
#include "userspace/attach/run_as.h"

namespace jfrbpf::attach {
namespace {

template <typename Call>
AttachError expectAttachError(Call&& call) {
  try {
    call();
  } catch (const AttachError& error) {
    return error;
  }
  ADD_FAILURE() << "no AttachError thrown";
  return AttachError(AttachFailure::ProtocolError, "none");
}

TEST(AttachTarget, RejectsInvalidExitedAndThreadIds) {
  EXPECT_EQ(expectAttachError([] { TargetProcess::open(-3); }).kind(), AttachFailure::NoSuchProcess);

  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  AttachError gone = expectAttachError([&] { HotSpotVm::inspect(child); });
  EXPECT_EQ(gone.kind(), AttachFailure::NoSuchProcess);
  EXPECT_NE(std::string(gone.what()).find(std::to_string(child)), std::string::npos) << gone.what();

  std::atomic<bool> stop = false;
  std::atomic<pid_t> liveThread = 0;
  std::thread alive([&] {
    liveThread = static_cast<pid_t>(::syscall(SYS_gettid));
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  while (liveThread == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  AttachError thread = expectAttachError([&] { TargetProcess::open(liveThread); });
  stop = true;
  alive.join();
  EXPECT_EQ(thread.kind(), AttachFailure::NoSuchProcess);
  EXPECT_NE(std::string(thread.what()).find("is a thread"), std::string::npos) << thread.what();
}

TEST(AttachTarget, IdentifiesItselfAndIsNotAJvm) {
  TargetProcess self = TargetProcess::open(::getpid());
  EXPECT_EQ(self.target().namespacePid, ::getpid());
  EXPECT_EQ(self.target().effectiveUid, ::geteuid());
  EXPECT_FALSE(self.target().otherMountNamespace);
  EXPECT_FALSE(self.target().otherPidNamespace);
  EXPECT_TRUE(self.alive());
  AttachError notJvm = expectAttachError([] { HotSpotVm::inspect(::getpid()); });
  EXPECT_EQ(notJvm.kind(), AttachFailure::NotHotSpot);
  EXPECT_NE(std::string(notJvm.what()).find("not a HotSpot JVM"), std::string::npos) << notJvm.what();
}

TEST(AttachCredentials, SwitchesOnlyTheWorkerThread) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  uid_t seenUid = 0;
  gid_t seenGid = 0;
  runWithCredentials({65534, 65534}, [&] {
    seenUid = ::geteuid();
    seenGid = ::getegid();
  });
  EXPECT_EQ(seenUid, 65534u);
  EXPECT_EQ(seenGid, 65534u);
  EXPECT_EQ(::geteuid(), 0u);
  EXPECT_EQ(::getegid(), 0u);
  EXPECT_THROW(runWithCredentials({65534, 65534}, [] { throw Error("from the worker"); }), Error);
  EXPECT_EQ(::geteuid(), 0u);
}

TEST(AttachCredentials, CreatesFilesOwnedByTheTargetUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  test::ScratchDir scratch;
  runWithCredentials({65534, 65534}, [&] {
    UniqueFd fd(::open(scratch.file("owned").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    ASSERT_TRUE(fd);
  });
  struct stat st {};
  ASSERT_EQ(::stat(scratch.file("owned").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
}

TEST(AttachStaging, CopiesIntoAFreshPrivateDirectoryAndRemovesIt) {
  TargetProcess self = TargetProcess::open(::getpid());
  std::string directory;
  {
    StagedAgent staged = StagedAgent::prepare(self, test::testAgentPath());
    EXPECT_FALSE(staged.reused());
    const std::string& path = staged.pathInTarget();
    ASSERT_TRUE(path.starts_with("/tmp/jfrbpf-")) << path;
    EXPECT_TRUE(path.ends_with("/" + std::string(kStagedAgentFileName))) << path;
    directory = std::filesystem::path(path).parent_path();
    struct stat dirStat {};
    struct stat fileStat {};
    ASSERT_EQ(::lstat(directory.c_str(), &dirStat), 0);
    ASSERT_EQ(::lstat(path.c_str(), &fileStat), 0);
    EXPECT_TRUE(S_ISDIR(dirStat.st_mode));
    EXPECT_EQ(dirStat.st_mode & 07777, 0711u);
    EXPECT_TRUE(S_ISREG(fileStat.st_mode));
    EXPECT_EQ(fileStat.st_mode & 07777, 0755u);
    EXPECT_EQ(dirStat.st_uid, ::geteuid());
    EXPECT_EQ(test::fileContents(path), test::fileContents(test::testAgentPath()));

    StagedAgent other = StagedAgent::prepare(self, test::testAgentPath());
    EXPECT_NE(other.pathInTarget(), path);  // every staging gets its own unpredictable directory
    StagedAgent moved = std::move(other);
    EXPECT_TRUE(test::pathExists(moved.pathInTarget()));
  }
  EXPECT_FALSE(test::pathExists(directory));
}

// Attaches to several JVMs at once (record --all) stage into the same /tmp and each sweeps it for orphans:
// none may take another's directory for one, even between its mkdir and its lock.
TEST(AttachStaging, ConcurrentStagingsNeverSweepEachOther) {
  TargetProcess self = TargetProcess::open(::getpid());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 40; ++i) {
        try {
          StagedAgent staged = StagedAgent::prepare(self, test::testAgentPath());
          if (!test::pathExists(staged.pathInTarget())) ++failures;
        } catch (const std::exception& e) {
          ADD_FAILURE() << e.what();
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

// The sweep removes what a dead recorder left, and nothing else that happens to start with "jfrbpf-".
TEST(AttachStaging, SweepsOrphansButNotOthersDirectories) {
  const std::string orphan = "/tmp/jfrbpf-00112233445566778a";
  const std::string notOurs = "/tmp/jfrbpf-notes-of-someone";
  std::filesystem::create_directories(orphan);
  std::filesystem::create_directories(notOurs);
  { StagedAgent staged = StagedAgent::prepare(TargetProcess::open(::getpid()), test::testAgentPath()); }
  EXPECT_FALSE(test::pathExists(orphan)) << "an unlocked copy's directory is an orphan";
  EXPECT_TRUE(test::pathExists(notOurs));
  std::filesystem::remove_all(notOurs);
}

TEST(AttachStaging, ReusesAMappedAgentInsteadOfCopying) {
  void* handle = ::dlopen(test::testAgentPath().c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << ::dlerror();
  {
    StagedAgent staged = StagedAgent::prepare(TargetProcess::open(::getpid()), test::testAgentPath());
    EXPECT_TRUE(staged.reused());
    EXPECT_EQ(staged.pathInTarget(), std::filesystem::canonical(test::testAgentPath()).string());
  }
  ::dlclose(handle);
}

TEST(AttachStaging, ReportsAnUnreadableLibrary) {
  AttachError missing = expectAttachError(
      [] { StagedAgent::prepare(TargetProcess::open(::getpid()), "/nonexistent/libjfrbpf-agent.so"); });
  EXPECT_EQ(missing.kind(), AttachFailure::AgentLoadFailed);
  EXPECT_NE(std::string(missing.what()).find("/nonexistent/libjfrbpf-agent.so"), std::string::npos);
}

}  // namespace
}  // namespace jfrbpf::attach
