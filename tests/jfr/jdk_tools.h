#pragma once
// Helpers for checking written recordings with the JDK's own `jfr` tool.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tests/jfr/json.h"

namespace jfrbpf::test {

struct ToolResult {
  int exitCode = -1;
  std::string out, err;
};

// <jdkHome>/bin/jfr with these arguments, stdout and stderr captured.
ToolResult runJfr(const std::string& jdkHome, const std::vector<std::string>& args);

std::string jdk17Home();  // the build's JDK (17)
std::string jdk25Home();  // empty when no JDK 25 with a jfr tool is installed

// A private directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }
  std::vector<std::string> entries() const;  // file names, sorted

 private:
  std::string path_;
};

std::string readFile(const std::string& path);

// "PT0.01S", "PT1M2.5S", "PT-0.001S" → nanoseconds.
int64_t isoDurationNanos(std::string_view iso);
// "2026-11-21T22:15:54.587829650Z" → nanoseconds since the epoch.
int64_t isoInstantNanos(std::string_view iso);

// Event counts from `jfr summary` output ("jdk.CPUTimeSample  11  176" → 11), and its "Chunks: N".
std::map<std::string, int64_t> summaryCounts(const std::string& summary);
int summaryChunks(const std::string& summary);

// The "values" of every event of this type in a `jfr print --json` document, in file order.
std::vector<const Json*> eventsOfType(const Json& document, std::string_view type);

// `jfr metadata` output split into one block per type ("@Name(...)" … "}"), keyed by the type's name.
std::map<std::string, std::string> metadataBlocks(const std::string& metadataOutput);

}  // namespace jfrbpf::test
