#pragma once
// Shared by the record end-to-end tests: where the binaries are, a scratch directory, and the workload.
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>

#include "test_config.h"
#include "tests/support/child_process.h"

namespace jfrbpf::test {

inline std::string jfrbpfBinary() { return std::string(kBinaryDir) + "/userspace/cli/jfrbpf"; }
inline std::string threadsWorkload() { return std::string(kBinaryDir) + "/tests/record/threads_workload"; }
inline std::string burstyWorkload() { return std::string(kBinaryDir) + "/tests/record/bursty_workload"; }
inline std::string jdkTool(const char* tool) { return std::string(kJdkHome) + "/bin/" + tool; }

// Where a scratch directory lives: in the build tree, or where other users can reach it, for tests whose
// targets run as another user (a build tree in root's home, mode 0700 on Debian, is out of their reach).
enum class Reach { kOwner, kOtherUsers };

// A fresh directory, removed at the end of the test.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name, Reach reach = Reach::kOwner) {
    if (reach == Reach::kOtherUsers) {
      std::string pattern = (std::filesystem::temp_directory_path() / ("jfrbpf-" + name + "-XXXXXX")).string();
      if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
      path_ = pattern;
      std::filesystem::permissions(path_, std::filesystem::perms(0755));
      return;
    }
    path_ = std::filesystem::path(kBinaryDir) / "test-scratch" / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Reads the workload's "ready <name> <tid>" lines: name -> tid.
inline std::map<std::string, int64_t> readyThreads(ChildProcess& workload, size_t count = 4) {
  std::map<std::string, int64_t> tids;
  while (tids.size() < count) {
    auto line = workload.readLine(std::chrono::seconds(10));
    if (!line) break;
    char name[64];
    long tid = 0;
    if (std::sscanf(line->c_str(), "ready %63s %ld", name, &tid) == 2) tids[name] = tid;
  }
  return tids;
}

}  // namespace jfrbpf::test
