#include "tests/view/view_test_support.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_config.h"
#include "tests/support/child_process.h"

namespace jfrbpf::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "jfrbpf-view-test-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::map<std::string, uint64_t> parseCollapsed(const std::string& text, uint64_t* total) {
  std::map<std::string, uint64_t> stacks;
  uint64_t sum = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << "malformed collapsed line: " << line;
    if (space == std::string::npos) continue;
    uint64_t weight = std::stoull(line.substr(space + 1));
    stacks[line.substr(0, space)] += weight;
    sum += weight;
  }
  if (total) *total = sum;
  return stacks;
}

std::string viewCli() { return std::string(kBinaryDir) + "/tests/view/view_cli"; }

CliResult runCli(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {viewCli()};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv, std::chrono::seconds(120));
  return CliResult{r.exitCode, r.output};
}

std::vector<std::vector<std::string>> tableRows(const std::string& text, const std::string& title) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  bool inTitle = false;
  std::vector<std::pair<size_t, size_t>> columns;
  while (std::getline(in, line)) {
    if (columns.empty()) {
      if (line.find(title) != std::string::npos) inTitle = true;
      if (inTitle && !line.empty() && line.find_first_not_of("- ") == std::string::npos) {
        for (size_t pos = 0; pos < line.size();) {
          size_t start = line.find('-', pos);
          if (start == std::string::npos) break;
          size_t end = line.find(' ', start);
          if (end == std::string::npos) end = line.size();
          columns.emplace_back(start, end);
          pos = end;
        }
      }
      continue;
    }
    if (line.empty()) break;
    std::vector<std::string> cells;
    for (size_t c = 0; c < columns.size(); ++c) {
      size_t start = columns[c].first;
      size_t end = c + 1 < columns.size() ? columns[c + 1].first : line.size();
      std::string cell = start < line.size() ? line.substr(start, end - start) : "";
      cell.erase(0, cell.find_first_not_of(' '));
      cell.erase(cell.find_last_not_of(' ') + 1);
      cells.push_back(cell);
    }
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace jfrbpf::test
