#include "tests/view/view_test_support.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
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

void expectCliError(const std::vector<std::string>& args, int exitCode, const std::string& message) {
  CliResult r = runCli(args);
  EXPECT_EQ(r.exitCode, exitCode) << args.back() << ": " << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

std::map<std::string, uint64_t> convertCollapsed(const std::string& path, const std::vector<std::string>& args,
                                                 uint64_t* total) {
  std::vector<std::string> command = {"convert", path, "--to", "collapsed", "-o", "-"};
  command.insert(command.end(), args.begin(), args.end());
  CliResult r = runCli(command);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return parseCollapsed(r.output, total);
}

bool havePprofDecoder() { return system("command -v protoc > /dev/null 2>&1") == 0; }

DecodedPprof decodePprof(const std::string& path) {
  std::string proto = std::string(kSourceDir) + "/formats/convert/profile.proto";
  RunResult decoded = run({"sh", "-c",
                           "gzip -dc '" + path + "' | protoc --decode=perftools.profiles.Profile -I '" +
                               std::string(kSourceDir) + "' '" + proto + "'"});
  EXPECT_EQ(decoded.exitCode, 0) << decoded.output;
  DecodedPprof out{decoded.output, {}};
  std::regex entry("string_table: \"((?:[^\"\\\\]|\\\\.)*)\"");
  for (auto it = std::sregex_iterator(out.text.begin(), out.text.end(), entry); it != std::sregex_iterator(); ++it) {
    out.strings.push_back((*it)[1]);
  }
  return out;
}

std::vector<int64_t> DecodedPprof::valueSums() const {
  const size_t types = sampleTypes().size();
  std::vector<int64_t> sums(types);
  std::regex value("value: (-?[0-9]+)");
  size_t index = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), value); it != std::sregex_iterator(); ++it, ++index) {
    sums[index % types] += std::stoll((*it)[1]);
  }
  return sums;
}

std::vector<std::string> DecodedPprof::sampleTypes() const {
  std::vector<std::string> types;
  std::regex type("sample_type \\{\\s*type: ([0-9]+)\\s*unit: ([0-9]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), type); it != std::sregex_iterator(); ++it) {
    types.push_back(strings.at(std::stoul((*it)[1])) + "/" + strings.at(std::stoul((*it)[2])));
  }
  return types;
}

std::string DecodedPprof::defaultSampleType() const {
  std::smatch match;
  if (!std::regex_search(text, match, std::regex("default_sample_type: ([0-9]+)"))) return "";
  return strings.at(std::stoul(match[1]));
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
