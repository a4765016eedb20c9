// Thread constants over a recording of many files: each file interns afresh the threads it meets, and the
// threads that exited are forgotten at the file boundary, so a JVM that starts threads without end keeps
// the registry bounded.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>

#include "formats/jfr/writer/recording.h"
#include "tests/jfr/jdk_tools.h"
#include "userspace/record/jvm/thread_registry.h"

namespace jfrbpf::record {
namespace {

pid_t currentTid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

TEST(RecordThreadRegistry, ANewFileForgetsExitedThreadsAndInternsLiveOnesAgain) {
  test::TempDir dir;
  jfr::Recording out({.path = dir.file("a.jfr")});
  ThreadRegistry threads(out);
  const pid_t tgid = getpid();
  const pid_t self = currentTid();
  pid_t exited = 0;
  std::thread([&] {
    exited = currentTid();
    threads.threadFor(tgid, exited);
  }).join();
  threads.setJavaIdentity(tgid, self, "main", 1, false);
  const jfr::ThreadId before = threads.threadFor(tgid, self);
  EXPECT_NE(before, 0u);
  EXPECT_TRUE(threads.knows(tgid, exited));
  EXPECT_EQ(threads.everSeen(), 2u);

  ASSERT_EQ(out.continueIn(dir.file("b.jfr")), std::nullopt);
  const jfr::ThreadId after = threads.threadFor(tgid, self);
  EXPECT_NE(after, 0u);
  EXPECT_FALSE(threads.knows(tgid, exited)) << "its thread is gone: forgotten with the file";
  EXPECT_TRUE(threads.knows(tgid, self));
  EXPECT_EQ(threads.everSeen(), 2u) << "the recording's count keeps every thread it met";
  EXPECT_EQ(threads.threadFor(tgid, self), after) << "stable within the file";
  out.cpuTimeSamplesLost(jfr::Recording::now(), 1, after);
  out.close();

  if (access((test::jdk17Home() + "/bin/jfr").c_str(), X_OK) != 0)
    GTEST_SKIP() << "no jfr tool in " << test::jdk17Home() << " to read the file";
  const auto print =
      test::runJfr(test::jdk17Home(), {"print", "--events", "CPUTimeSamplesLost", dir.file("b.jfr")});
  ASSERT_EQ(print.exitCode, 0) << print.err;
  EXPECT_NE(print.out.find("\"main\""), std::string::npos) << "the Java name survives the new file:\n" << print.out;
}

}  // namespace
}  // namespace jfrbpf::record
