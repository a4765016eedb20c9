#include "tests/symbolize/test_helpers.h"

#include <unistd.h>

#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace jfrbpf::symbolize::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "symbolize-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

MappingFacts mappingOf(int pid, uint64_t address) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    uint64_t start;
    uint64_t end;
    uint64_t offset;
    int pathStart = 0;
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*u %n", &start, &end, &offset,
                    &pathStart) < 3) {
      continue;
    }
    if (address >= start && address < end) {
      return {start, offset, pathStart > 0 ? line.substr(static_cast<size_t>(pathStart)) : std::string()};
    }
  }
  return {};
}

std::string commandOutput(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  std::array<char, 4096> buffer;
  size_t got;
  while ((got = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) output.append(buffer.data(), got);
  pclose(pipe);
  return output;
}

std::string readelfBuildId(const std::string& file) {
  std::istringstream lines(commandOutput("readelf -n '" + file + "' 2>/dev/null"));
  std::string line;
  while (std::getline(lines, line)) {
    size_t at = line.find("Build ID: ");
    if (at != std::string::npos) return line.substr(at + 10);
  }
  return {};
}

uint64_t readelfSymbolValue(const std::string& file, const std::string& name) {
  std::istringstream lines(commandOutput("readelf -sW '" + file + "' 2>/dev/null"));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string index, value, size, type, bind, visibility, section, symbol;
    if (!(fields >> index >> value >> size >> type >> bind >> visibility >> section >> symbol)) continue;
    if (symbol == name || symbol.rfind(name + "@", 0) == 0) return std::stoull(value, nullptr, 16);
  }
  return 0;
}

std::string symtestLibrary(const std::string& variant) { return std::string(SYMTEST_DIR) + "/lib" + variant + ".so"; }

std::optional<std::map<std::string, std::string>> readUntilReady(jfrbpf::test::ChildProcess& helper, std::string& error,
                                                                std::chrono::seconds timeout) {
  std::vector<std::string> lines;
  if (!helper.awaitLine("ready", timeout, &lines)) {
    error = "helper did not answer (timeout or exit)";
    return std::nullopt;
  }
  std::map<std::string, std::string> values;
  for (const std::string& line : lines) {
    if (line.starts_with("error")) {
      error = line;
      return std::nullopt;
    }
    size_t space = line.find(' ');
    if (space != std::string::npos) values[line.substr(0, space)] = line.substr(space + 1);
  }
  return values;
}

uint64_t parseAddress(const std::string& text) { return std::strtoull(text.c_str(), nullptr, 16); }

}  // namespace jfrbpf::symbolize::test
