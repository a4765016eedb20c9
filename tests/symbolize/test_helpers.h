#pragma once
// Helpers shared by the symbolizer tests. They deliberately avoid the code under test: maps lines are read
// with sscanf, build-ids with readelf, so an expectation never comes from the thing it checks.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "tests/support/child_process.h"

namespace jfrbpf::symbolize::test {

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct MappingFacts {
  uint64_t start = 0;
  uint64_t fileOffset = 0;
  std::string path;
};
// The /proc/PID/maps line containing `address` (empty path and start 0 when none).
MappingFacts mappingOf(int pid, uint64_t address);

// Output of a shell command (stdout only).
std::string commandOutput(const std::string& command);
// "Build ID: <hex>" from readelf -n, or empty.
std::string readelfBuildId(const std::string& file);
// Value of symbol `name` from readelf -s, or 0.
uint64_t readelfSymbolValue(const std::string& file, const std::string& name);

std::string symtestLibrary(const std::string& variant);  // SYMTEST_DIR/lib<variant>.so

// symtest_prog (started with a writable stdin for its commands) prints "<key> <value>" lines, then "ready":
// the pairs up to there, or nullopt on timeout, exit or an "error" line (with what went wrong in `error`).
std::optional<std::map<std::string, std::string>> readUntilReady(
    jfrbpf::test::ChildProcess& helper, std::string& error, std::chrono::seconds timeout = std::chrono::seconds(30));
uint64_t parseAddress(const std::string& text);  // the helper's "0x<hex>"

}  // namespace jfrbpf::symbolize::test
