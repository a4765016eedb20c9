#include "tests/jfr/jdk_tools.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "test_config.h"
#include "tests/support/child_process.h"

namespace jfrbpf::test {

std::string jdk17Home() { return kJdkHome; }

std::string jdk25Home() {
  std::string home = kJdk25Home;
  if (home.empty() || access((home + "/bin/jfr").c_str(), X_OK) != 0) return {};
  return home;
}

TempDir::TempDir() {
  char pattern[] = "/tmp/jfrbpf-writer-test.XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path_)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

ToolResult runJfr(const std::string& jdkHome, const std::vector<std::string>& args) {
  std::vector<std::string> argv{jdkHome + "/bin/jfr"};
  argv.insert(argv.end(), args.begin(), args.end());
  // Both streams in files, read once it exits: through a pipe nobody reads meanwhile, `jfr print` (hundreds of
  // MB) would block.
  ChildProcess tool(argv, {.keepStderr = true, .keepStdout = true});
  // Only a hang guard outside ctest: within it, the suite's TIMEOUT (600 s at most) ends a hung tool first.
  ToolResult result;
  result.exitCode = tool.wait(std::chrono::minutes(10)).value_or(-1);
  result.out = tool.stdoutText();
  result.err = tool.stderrText();
  return result;
}

int64_t isoDurationNanos(std::string_view iso) {
  if (iso.substr(0, 2) != "PT") throw std::runtime_error("not an ISO duration: " + std::string(iso));
  iso.remove_prefix(2);
  int64_t total = 0;
  while (!iso.empty()) {
    bool negative = iso.front() == '-';
    if (negative) iso.remove_prefix(1);
    int64_t whole = 0, fraction = 0, scale = 1'000'000'000;
    while (!iso.empty() && iso.front() >= '0' && iso.front() <= '9') {
      whole = whole * 10 + (iso.front() - '0');
      iso.remove_prefix(1);
    }
    if (!iso.empty() && iso.front() == '.') {
      iso.remove_prefix(1);
      while (!iso.empty() && iso.front() >= '0' && iso.front() <= '9') {
        scale /= 10;
        fraction += (iso.front() - '0') * scale;
        iso.remove_prefix(1);
      }
    }
    if (iso.empty()) throw std::runtime_error("ISO duration without unit");
    int64_t unit = iso.front() == 'H' ? 3600'000'000'000 : iso.front() == 'M' ? 60'000'000'000 : 1'000'000'000;
    iso.remove_prefix(1);
    int64_t nanos = whole * unit + fraction * (unit / 1'000'000'000);
    total += negative ? -nanos : nanos;
  }
  return total;
}

int64_t isoInstantNanos(std::string_view iso) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char fraction[16] = {};
  std::string text(iso);
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%15[0-9]Z", &y, &mo, &d, &h, &mi, &s, fraction) < 6)
    throw std::runtime_error("not an ISO instant: " + text);
  using namespace std::chrono;
  sys_days day = year{y} / month{static_cast<unsigned>(mo)} / static_cast<unsigned>(d);
  int64_t nanos =
      duration_cast<nanoseconds>(day.time_since_epoch()).count() + ((h * 60LL + mi) * 60 + s) * 1'000'000'000LL;
  int64_t scale = 100'000'000;
  for (const char* f = fraction; *f; ++f, scale /= 10) nanos += (*f - '0') * scale;
  return nanos;
}

std::map<std::string, int64_t> summaryCounts(const std::string& summary) {
  std::map<std::string, int64_t> counts;
  std::istringstream lines(summary);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string name;
    int64_t count = 0, size = 0;
    if ((fields >> name >> count >> size) && name.find('.') != std::string::npos) counts[name] = count;
  }
  return counts;
}

int summaryChunks(const std::string& summary) {
  size_t at = summary.find("Chunks:");
  return at == std::string::npos ? -1 : std::atoi(summary.c_str() + at + 7);
}

std::vector<const Json*> eventsOfType(const Json& document, std::string_view type) {
  std::vector<const Json*> found;
  for (const Json& event : document["recording"]["events"].items())
    if (event["type"].string() == type) found.push_back(&event["values"]);
  return found;
}

std::map<std::string, std::string> metadataBlocks(const std::string& metadataOutput) {
  std::map<std::string, std::string> blocks;
  std::istringstream lines(metadataOutput);
  std::string line, block, name;
  while (std::getline(lines, line)) {
    block += line + "\n";
    if (name.empty() && line.rfind("@Name(\"", 0) == 0) name = line.substr(7, line.find('"', 7) - 7);
    if (name.empty() && line.rfind("class ", 0) == 0) name = line.substr(6, line.find(' ', 6) - 6);
    if (line == "}") {
      blocks[name] = block;
      block.clear();
      name.clear();
    } else if (line.empty() && name.empty()) {
      block.clear();
    }
  }
  return blocks;
}

}  // namespace jfrbpf::test
