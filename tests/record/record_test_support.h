#pragma once
// Shared by the record end-to-end tests: where the binaries are, a scratch directory, and the workload.
#include <filesystem>
#include <map>
#include <string>

#include "test_config.h"
#include "tests/support/child_process.h"

namespace jfrbpf::test {

inline std::string jfrbpfBinary() { return std::string(kBinaryDir) + "/userspace/cli/jfrbpf"; }
inline std::string threadsWorkload() { return std::string(kBinaryDir) + "/tests/record/threads_workload"; }
inline std::string burstyWorkload() { return std::string(kBinaryDir) + "/tests/record/bursty_workload"; }
inline std::string jdkTool(const char* tool) { return std::string(kJdkHome) + "/bin/" + tool; }

// A fresh directory under the build tree, removed at the end of the test.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::path(kBinaryDir) / "test-scratch" / name) {
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
