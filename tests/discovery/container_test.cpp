// The container deliverables in scripts/container: the Kubernetes manifests pass a schema-aware lint (and
// broken ones do not), and jfrbpf-loop.sh runs rounds and hands SIGTERM to jfrbpf (with a stand-in jfrbpf).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_config.h"
#include "tests/discovery/child_process.h"

namespace jfrbpf::discovery {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct CommandResult {
  int status = -1;
  std::string output;  // stdout and stderr
};

// Runs a shell command line; the output is bounded only by what the command prints.
CommandResult runShell(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> chunk;
  size_t n;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), pipe)) > 0) result.output.append(chunk.data(), n);
  int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const fs::path kContainerDir = fs::path(test::kSourceDir) / "scripts/container";

class DiscoveryManifestLint : public ::testing::Test {
 protected:
  void SetUp() override {
    if (runShell("command -v node && command -v npm").status != 0) GTEST_SKIP() << "node/npm not installed";
    lintDir_ = fs::path(test::kBinaryDir) / "tests/discovery/manifest-lint";
    fs::create_directories(lintDir_);
    const fs::path source = kContainerDir / "lint";
    const bool lockChanged = readText(source / "package-lock.json") != readText(lintDir_ / "package-lock.json");
    for (const char* name : {"package.json", "package-lock.json", "lint-manifests.mjs"}) {
      fs::copy_file(source / name, lintDir_ / name, fs::copy_options::overwrite_existing);
    }
    if (lockChanged || !fs::exists(lintDir_ / "node_modules")) {
      CommandResult install =
          runShell("cd " + quoted(lintDir_.string()) + " && npm ci --no-audit --no-fund --loglevel=error");
      if (install.status != 0) {
        fs::remove_all(lintDir_ / "node_modules");
        GTEST_SKIP() << "npm ci could not install the linter (is the npm registry reachable?):\n" << install.output;
      }
    }
  }

  CommandResult lint(const std::vector<fs::path>& files) {
    std::string command = "cd " + quoted(lintDir_.string()) + " && node lint-manifests.mjs";
    for (const fs::path& file : files) command += " " + quoted(file.string());
    return runShell(command);
  }

  static std::vector<fs::path> yamlFilesIn(const fs::path& directory) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(directory)) {
      if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  fs::path lintDir_;
};

TEST_F(DiscoveryManifestLint, ShippedManifestsAreValid) {
  std::vector<fs::path> manifests = yamlFilesIn(kContainerDir / "k8s");
  ASSERT_GE(manifests.size(), 2u);
  CommandResult result = lint(manifests);
  EXPECT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("ok: "), std::string::npos) << result.output;
}

TEST_F(DiscoveryManifestLint, BrokenManifestsAreRejected) {
  const fs::path bad = fs::path(test::kSourceDir) / "tests/testdata/discovery/bad-manifests";
  const std::vector<std::pair<std::string, std::string>> expectations{
      {"unknown-field.yaml", "hostPid"},
      {"nested-unknown-field.yaml", "privilegd"},
      {"wrong-type.yaml", "must be boolean"},
      {"missing-required.yaml", "required property name"},
      {"duplicate-key.yaml", "unique"},
      {"unknown-kind.yaml", "DaemonSett"},
  };
  ASSERT_EQ(yamlFilesIn(bad).size(), expectations.size());
  for (const auto& [file, expected] : expectations) {
    CommandResult result = lint({bad / file});
    EXPECT_EQ(result.status, 1) << file << ":\n" << result.output;
    EXPECT_NE(result.output.find(file), std::string::npos) << result.output;
    EXPECT_NE(result.output.find(expected), std::string::npos) << file << ":\n" << result.output;
  }
}

class DiscoveryContainerLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/jfrbpf-discovery-loop-XXXXXX";
    ASSERT_NE(::mkdtemp(path), nullptr);
    scratch_ = path;
    fs::create_directories(scratch_ / "bin");
  }
  void TearDown() override { fs::remove_all(scratch_); }

  // A stand-in for jfrbpf: a sh script in which $LOG is the log file; it should append its arguments to it
  // once it is ready for SIGTERM (the test waits for that line).
  void fakeJfrbpf(const std::string& body) {
    const fs::path fake = scratch_ / "bin/jfrbpf";
    std::ofstream(fake) << "#!/bin/sh\nLOG=" << quoted((scratch_ / "log").string()) << "\n" << body;
    fs::permissions(fake, fs::perms::owner_all);
  }

  std::vector<std::string> loopCommand() const {
    return {"env",
            "PATH=" + (scratch_ / "bin").string() + ":/usr/bin:/bin",
            "JFRBPF_OUT=" + (scratch_ / "out").string(),
            "JFRBPF_ROUND=1s",
            "NODE_NAME=node-a",
            "/bin/sh",
            "-c",
            "exec \"$0\" 2>&1",
            (kContainerDir / "jfrbpf-loop.sh").string()};
  }

  // Waits until the log has `lines` lines; false after a hang guard.
  bool waitForLogLines(size_t lines) const {
    for (int i = 0; i < 1500; ++i) {
      std::istringstream log(readText(scratch_ / "log"));
      size_t count = 0;
      for (std::string line; std::getline(log, line);) ++count;
      if (count >= lines) return true;
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  fs::path scratch_;
};

TEST_F(DiscoveryContainerLoop, RoundsGoToTimestampedDirectoriesAndSigtermIsForwarded) {
  // Records until told to stop, like `jfrbpf record` does on SIGTERM: finish the file, exit 0.
  fakeJfrbpf(R"(arguments="$*"
while [ $# -gt 0 ]; do [ "$1" = -o ] && dir=$2; shift; done
touch "$dir/partial"
sleep 600 & sleeper=$!
trap 'kill $sleeper; mv "$dir/partial" "$dir/recording.jfr"; echo term >> "$LOG"; exit 0' TERM
echo "$arguments" >> "$LOG"
wait
)");
  discovery_test::ChildProcess loop(loopCommand());
  ASSERT_TRUE(waitForLogLines(1));
  ASSERT_EQ(::kill(loop.pid(), SIGTERM), 0);
  auto status = loop.waitForExit(30s);
  ASSERT_TRUE(status.has_value()) << "jfrbpf-loop did not exit on SIGTERM";
  EXPECT_EQ(*status, 0) << loop.readAll(1s);

  std::string log = readText(scratch_ / "log");
  EXPECT_TRUE(std::regex_search(log, std::regex("^record --all -d 1s -o .*/out/node-a/[0-9]{8}T[0-9]{6}Z\n")))
      << log;
  EXPECT_NE(log.find("term\n"), std::string::npos) << "SIGTERM was not passed to jfrbpf:\n" << log;
  std::vector<fs::path> rounds;
  for (const auto& entry : fs::directory_iterator(scratch_ / "out/node-a")) rounds.push_back(entry.path());
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_TRUE(fs::exists(rounds.front() / "recording.jfr"));
}

TEST_F(DiscoveryContainerLoop, FailedRoundIsReportedAndLeavesNoEmptyDirectory) {
  fakeJfrbpf("echo \"$*\" >> \"$LOG\"\nexit 3\n");
  discovery_test::ChildProcess loop(loopCommand());
  ASSERT_TRUE(loop.waitForLine("jfrbpf-loop: jfrbpf record exited with status 3; next round in 10 s"));
  ASSERT_EQ(::kill(loop.pid(), SIGTERM), 0);  // during the pause: exits without another round
  auto status = loop.waitForExit(30s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 0);
  EXPECT_TRUE(fs::is_empty(scratch_ / "out/node-a"));
  std::istringstream log(readText(scratch_ / "log"));
  size_t rounds = 0;
  for (std::string line; std::getline(log, line);) ++rounds;
  EXPECT_EQ(rounds, 1u);
}

}  // namespace
}  // namespace jfrbpf::discovery
