// The child process helper every test and benchmark starts programs with: lines, exit codes, stdin, what it
// keeps in files, the environment it passes, and that nothing it started outlives it.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "base/error.h"
#include "tests/support/child_process.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;

// Whether `pid` is gone or a zombie, within a few seconds: a killed orphan waits for init to reap it.
bool ended(pid_t pid) {
  for (int attempt = 0; attempt < 250; ++attempt) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    size_t close = text.rfind(')');
    if (close == std::string::npos || text.compare(close, 3, ") Z") == 0) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

TEST(ChildProcess, ReadsLinesAndExitStatus) {
  ChildProcess child({"/bin/sh", "-c", "echo one; echo two; printf three; exit 3"});
  EXPECT_EQ(child.readLine(10s), "one");
  EXPECT_EQ(child.awaitLine("thr", 10s), "three");
  EXPECT_EQ(child.readLine(1s), std::nullopt);
  EXPECT_EQ(child.wait(10s), 3);
}

TEST(ChildProcess, ReadsUntilItsOutputHoldsAText) {
  ChildProcess child({"/bin/sh", "-c", "echo a; echo b c; echo d"});
  std::string output;
  EXPECT_TRUE(child.readUntil("b", 10s, output));
  EXPECT_EQ(output, "a\nb c\n");
  EXPECT_FALSE(child.readUntil("z", 10s, output)) << "the end of its output";
  EXPECT_EQ(output, "a\nb c\nd\n");
}

TEST(ChildProcess, WritesStdinAndKillsWhatStillRuns) {
  pid_t pid = 0;
  {
    ChildProcess cat({"cat"}, {.writableStdin = true});
    pid = cat.pid();
    cat.writeLine("hello");
    EXPECT_EQ(cat.readLine(10s), "hello");
    EXPECT_TRUE(cat.running());
  }
  EXPECT_NE(kill(pid, 0), 0);  // killed and reaped by the destructor
}

TEST(ChildProcess, ReportsCommandsThatCannotStart) {
  EXPECT_THROW(ChildProcess({"/nonexistent/jfrbpf-test-tool"}), Error);
  EXPECT_THROW(ChildProcess({"true"}, {.cwd = "/nonexistent"}), Error);
}

TEST(ChildProcess, KeepsOutputInFilesAndReplacesTheEnvironmentItIsGiven) {
  setenv("JFRBPF_CHILD_TEST", "old", 1);
  ChildProcess child({"/bin/sh", "-c", "echo \"$JFRBPF_CHILD_TEST\"; echo to-stderr >&2; pwd"},
                     {.extraEnv = {"JFRBPF_CHILD_TEST=new"}, .keepStderr = true, .keepStdout = true, .cwd = "/"});
  EXPECT_EQ(child.wait(10s), 0);
  EXPECT_EQ(child.stdoutText(), "new\n/\n");
  EXPECT_EQ(child.stderrText(), "to-stderr\n");
  unsetenv("JFRBPF_CHILD_TEST");
}

TEST(ChildProcess, StopEndsItsWholeGroupWithSigtermFirst) {
  // The shell traps SIGTERM and says so; its background sleep has no trap and dies of the SIGKILL that follows.
  ChildProcess child({"/bin/sh", "-c", "trap 'echo terminated; exit 0' TERM; sleep 600 & echo $!; wait"},
                     {.stopGrace = 10s});
  std::optional<std::string> sleeper = child.readLine(10s);
  ASSERT_TRUE(sleeper);
  child.stop();
  EXPECT_EQ(child.readLine(10s), "terminated");
  EXPECT_TRUE(ended(std::stoi(*sleeper))) << "the background sleep outlived the stop";
}

}  // namespace
}  // namespace jfrbpf::test
