// The small /proc formats and names: comm, /proc/stat's btime, cmdline and environ blocks, entry paths.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "userspace/proc/boot_time.h"
#include "userspace/proc/comm.h"
#include "userspace/proc/nul_separated.h"
#include "userspace/proc/paths.h"
#include "userspace/proc/process_dir.h"

namespace jfrbpf::proc {
namespace {

using namespace std::string_literals;

TEST(ProcComm, FirstLineIsTheName) {
  EXPECT_EQ(parseComm("java\n"), "java");
  EXPECT_EQ(parseComm("no newline"), "no newline");
  EXPECT_EQ(parseComm(""), "");
  EXPECT_EQ(readThreadComm(getpid(), getpid()).substr(0, 15), std::string(program_invocation_short_name).substr(0, 15));
  EXPECT_EQ(readThreadComm(0x3ffffff, 0x3ffffff), "");
}

TEST(ProcBootTime, FromTheBtimeLine) {
  EXPECT_EQ(parseBootTimeSeconds("cpu  1 2 3\nbtime 1700000000\nprocesses 5\n"), 1700000000);
  EXPECT_EQ(parseBootTimeSeconds("btime x\n"), std::nullopt);
  EXPECT_EQ(parseBootTimeSeconds("cpu 1\n"), std::nullopt);
  auto ours = readBootTimeSeconds();
  ASSERT_TRUE(ours.has_value());
  EXPECT_GT(*ours, 0);
}

TEST(ProcNulSeparated, CommandLinesAndEnvironments) {
  EXPECT_EQ(splitAtNul("java\0-Xmx1g\0Main\0"s), (std::vector<std::string_view>{"java", "-Xmx1g", "Main"}));
  EXPECT_EQ(splitAtNul("no terminator"), (std::vector<std::string_view>{"no terminator"}));
  EXPECT_TRUE(splitAtNul("").empty());
  const std::string environ = "PATH=/bin\0JAVA_TOOL_OPTIONS=-Xss1m\0JAVA=1\0EMPTY=\0"s;
  EXPECT_EQ(environmentValue(environ, "JAVA_TOOL_OPTIONS"), "-Xss1m");
  EXPECT_EQ(environmentValue(environ, "JAVA"), "1");
  EXPECT_EQ(environmentValue(environ, "EMPTY"), "");
  EXPECT_EQ(environmentValue(environ, "JAVA_HOME"), std::nullopt);
}

TEST(ProcPaths, EntriesOfAProcess) {
  EXPECT_EQ(procPath(42, "status"), "/proc/42/status");
  EXPECT_EQ(procPath(42, "status", "/tmp/fake"), "/tmp/fake/42/status");
  EXPECT_EQ(taskPath(42, 43, "comm"), "/proc/42/task/43/comm");
  EXPECT_EQ(mapFilesEntry(0x7f00, 0x7f10), "map_files/7f00-7f10");
  EXPECT_EQ(mapFilesPath(42, 0x7ff84ac00000, 0x7ff84ae51000), "/proc/42/map_files/7ff84ac00000-7ff84ae51000");
}

TEST(ProcDirectories, OwnThreadsAndRoot) {
  std::vector<pid_t> tasks = listTasks(getpid());
  EXPECT_NE(std::find(tasks.begin(), tasks.end(), gettid()), tasks.end());
  EXPECT_TRUE(listTasks(0x3ffffff).empty());
  EXPECT_TRUE(openProcessRoot(getpid()));
}

}  // namespace
}  // namespace jfrbpf::proc
