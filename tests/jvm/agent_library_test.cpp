// The agent library as the target JVM's dynamic loader sees it: only the JVMTI entry points exported, no
// C++ runtime, and nothing newer than glibc 2.17 required (so it loads into JVMs of older distributions).
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>
#include <sstream>

#include "tests/support/child_process.h"

namespace jfrbpf::jvm::test {
namespace {

using namespace std::chrono_literals;

std::string readelf(const std::string& options) {
  jfrbpf::test::RunResult readelf = jfrbpf::test::run({"/usr/bin/readelf", "-W", options, JFRBPF_AGENT_PATH}, 30s);
  return readelf.exitCode == 0 ? readelf.output : std::string();
}

class JvmAgentLibrary : public testing::Test {
 protected:
  void SetUp() override {
    if (access("/usr/bin/readelf", X_OK) != 0) GTEST_SKIP() << "readelf (binutils) is not installed";
  }
};

TEST_F(JvmAgentLibrary, ExportsOnlyTheEntryPoints) {
  std::istringstream symbols(readelf("--dyn-syms"));
  std::vector<std::string> exported;
  std::string line;
  while (std::getline(symbols, line)) {
    std::istringstream f(line);
    std::string num, value, size, type, bind, vis, ndx, name;
    if (!(f >> num >> value >> size >> type >> bind >> vis >> ndx >> name)) continue;
    if (ndx != "UND" && ndx != "Ndx" && (bind == "GLOBAL" || bind == "WEAK") && type != "NOTYPE") exported.push_back(name);
  }
  std::sort(exported.begin(), exported.end());
  EXPECT_EQ(exported, (std::vector<std::string>{"Agent_OnAttach", "Agent_OnLoad", "Agent_OnUnload"}));
}

TEST_F(JvmAgentLibrary, NeedsOnlyLibcOfGlibc217) {
  std::string dynamic = readelf("--dynamic");
  ASSERT_FALSE(dynamic.empty());
  std::regex needed("\\(NEEDED\\)\\s+Shared library: \\[([^\\]]+)\\]");
  for (auto it = std::sregex_iterator(dynamic.begin(), dynamic.end(), needed); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ((*it)[1].str(), "libc.so.6") << "the agent must not depend on " << (*it)[1].str();
  }
  std::string versions = readelf("--version-info");
  std::regex glibc("GLIBC_2\\.([0-9]+)");
  int newest = 0;
  for (auto it = std::sregex_iterator(versions.begin(), versions.end(), glibc); it != std::sregex_iterator(); ++it) {
    newest = std::max(newest, std::stoi((*it)[1].str()));
  }
  EXPECT_GT(newest, 0);
  EXPECT_LE(newest, 17) << "a symbol needs glibc 2." << newest;
  EXPECT_EQ(versions.find("GLIBCXX"), std::string::npos);
  EXPECT_EQ(versions.find("CXXABI"), std::string::npos);
}

}  // namespace
}  // namespace jfrbpf::jvm::test
