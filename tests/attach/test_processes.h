#pragma once
// Helpers for tests that run real processes: a scratch directory, how a child is started and watched, and JVM
// launching with the Sleeper test program.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/child_process.h"

namespace jfrbpf::attach::test {

class ScratchDir {
 public:
  ScratchDir();  // a fresh world-writable directory under /tmp (non-root test JVMs write into it)
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

// How the attach tests start a process: its stdout and stderr kept together for stdoutText(), in `cwd` when
// not empty, and ended with SIGTERM first (a JVM that shuts down removes its hsperfdata file and attach
// socket; SIGKILL would leave them), SIGKILL after 5 s.
jfrbpf::test::ChildOptions childOptions(const std::string& cwd = "");
// Polls the child's kept output until it contains `text`; false after the timeout or when the child exited.
bool waitForOutput(jfrbpf::test::ChildProcess& child, std::string_view text, std::chrono::milliseconds timeout);

// The first process named `comm` below `ancestor` (any depth), waiting up to `timeout`; -1 if none.
pid_t findDescendant(pid_t ancestor, std::string_view comm, std::chrono::milliseconds timeout);

// Directory holding Sleeper.class, and the test agents, as built by tests/attach/CMakeLists.txt.
std::string sleeperClassDir();
std::string testAgentPath();
std::string failingAgentPath();
std::string fakeJvmPath();

// argv for `java <jvmArgs> -cp <sleeper dir> Sleeper` of the given JDK, with small-footprint options.
std::vector<std::string> javaCommand(const std::string& jdkHome, const std::vector<std::string>& jvmArgs = {});

bool haveJdk25();
std::string fileContents(const std::string& path);
bool pathExists(const std::string& path);

}  // namespace jfrbpf::attach::test
