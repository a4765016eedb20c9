#include "tests/attach/test_processes.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "test_config.h"

namespace jfrbpf::attach::test {

ScratchDir::ScratchDir() {
  char pattern[] = "/tmp/attach-test-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
  ::chmod(path_.c_str(), 0777);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

jfrbpf::test::ChildOptions childOptions(const std::string& cwd) {
  return {.captureStderr = true, .keepStdout = true, .cwd = cwd, .stopGrace = std::chrono::seconds(5)};
}

bool waitForOutput(jfrbpf::test::ChildProcess& child, std::string_view text, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (child.stdoutText().find(text) != std::string::npos) return true;
    if (!child.running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

namespace {

// (pid, parent pid, comm) of every process.
struct ProcEntry {
  pid_t pid;
  pid_t parent;
  std::string comm;
};

std::vector<ProcEntry> processTable() {
  std::vector<ProcEntry> table;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = fileContents("/proc/" + name + "/stat");
    size_t open = stat.find('(');
    size_t close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 4 > stat.size()) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state;
    pid_t parent = 0;
    rest >> state >> parent;
    table.push_back({std::stoi(name), parent, stat.substr(open + 1, close - open - 1)});
  }
  return table;
}

}  // namespace

pid_t findDescendant(pid_t ancestor, std::string_view comm, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::vector<ProcEntry> table = processTable();
    for (const ProcEntry& candidate : table) {
      if (candidate.comm != comm) continue;
      for (pid_t up = candidate.parent, hops = 0; up > 1 && hops < 16; ++hops) {
        if (up == ancestor) return candidate.pid;
        auto parent = std::find_if(table.begin(), table.end(), [&](const ProcEntry& e) { return e.pid == up; });
        if (parent == table.end()) break;
        up = parent->parent;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return -1;
}

std::string sleeperClassDir() { return std::string(jfrbpf::test::kBinaryDir) + "/tests/attach/java"; }
std::string testAgentPath() {
  return std::string(jfrbpf::test::kBinaryDir) + "/tests/attach/libjfrbpf-agent-attach-test.so";
}
std::string failingAgentPath() {
  return std::string(jfrbpf::test::kBinaryDir) + "/tests/attach/libattach-failing-agent.so";
}

std::string fakeJvmPath() { return std::string(jfrbpf::test::kBinaryDir) + "/tests/attach/attach_fake_jvm"; }

std::vector<std::string> javaCommand(const std::string& jdkHome, const std::vector<std::string>& jvmArgs) {
  std::vector<std::string> argv = {jdkHome + "/bin/java", "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"};
  argv.insert(argv.end(), jvmArgs.begin(), jvmArgs.end());
  argv.insert(argv.end(), {"-cp", sleeperClassDir(), "Sleeper"});
  return argv;
}

bool haveJdk25() {
  return std::string_view(jfrbpf::test::kJdk25Home).size() > 0 &&
         pathExists(std::string(jfrbpf::test::kJdk25Home) + "/bin/java");
}

std::string fileContents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool pathExists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace jfrbpf::attach::test
