#pragma once
// Helpers for tests that run real processes: a scratch directory, a spawned child in its own process group
// (killed with its whole group on destruction), and JVM launching with the Sleeper test program.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

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

class Child {
 public:
  // Starts argv[0] (searched in PATH) with stdout and stderr appended to logFile, in `cwd` when not empty.
  Child(const std::vector<std::string>& argv, const std::string& logFile, const std::string& cwd = "");
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  std::string output() const;
  // Polls the log until it contains `text`; false after the timeout or when the child exited.
  bool waitForOutput(std::string_view text, std::chrono::milliseconds timeout) const;
  void kill();

 private:
  pid_t pid_ = -1;
  std::string logFile_;
};

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
