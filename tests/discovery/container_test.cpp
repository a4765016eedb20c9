// The container deliverables in scripts/container: the Kubernetes manifests pass a schema-aware lint (and
// broken ones do not), and the image's command is a continuous recording this jfrbpf runs.
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
#include <numeric>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_config.h"

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

// pin-image writes deployable copies with jfrbpf's image by digest: every jfrbpf image is pinned (the init
// container's too), the copies are still valid, and a tag is refused.
TEST_F(DiscoveryManifestLint, PinnedCopiesNameJfrbpfsImageByDigest) {
  const fs::path out = lintDir_ / "pinned";
  fs::remove_all(out);
  const std::string digest = "registry.example.com/jfrbpf@sha256:" + std::string(64, 'c');
  CommandResult pinned = runShell(quoted((kContainerDir / "pin-image").string()) + " " + digest + " " +
                                  quoted(out.string()));
  ASSERT_EQ(pinned.status, 0) << pinned.output;
  std::vector<fs::path> copies = yamlFilesIn(out);
  ASSERT_EQ(copies.size(), yamlFilesIn(kContainerDir / "k8s").size());
  size_t withImage = 0;
  for (const fs::path& copy : copies) {
    const std::string text = readText(copy);
    EXPECT_EQ(text.find("jfrbpf:0"), std::string::npos) << copy;
    if (text.find("image:") == std::string::npos) continue;  // push-secret.yaml runs nothing
    ++withImage;
    EXPECT_NE(text.find("image: " + digest), std::string::npos) << copy;
  }
  EXPECT_GE(withImage, 2u) << "the DaemonSet and the sidecar pod";
  CommandResult result = lint(copies);
  EXPECT_EQ(result.status, 0) << result.output;
  CommandResult tag = runShell(quoted((kContainerDir / "pin-image").string()) +
                               " registry.example.com/jfrbpf:0.1.0 " + quoted((lintDir_ / "tagged").string()));
  EXPECT_EQ(tag.status, 2) << tag.output;
  EXPECT_NE(tag.output.find("not an image reference by digest"), std::string::npos) << tag.output;
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

// The arguments of a manifest's or the Dockerfile's `args:`/`CMD` flow list: ["a", "b", ...].
std::vector<std::string> flowList(const std::string& text, const std::string& key) {
  std::smatch match;
  if (!std::regex_search(text, match, std::regex(key + R"( *\[([^\]]*)\])"))) return {};
  std::vector<std::string> items;
  const std::string list = match[1].str();
  const std::regex item(R"re("([^"]*)")re");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), item); it != std::sregex_iterator(); ++it) {
    items.push_back((*it)[1].str());
  }
  return items;
}

// The image runs jfrbpf itself (no shell loop): the Dockerfile's command, which the manifests repeat with
// their own directory and retention, is one continuous recording that this jfrbpf accepts and runs.
TEST(DiscoveryContainerCommand, ImageAndManifestsRunOneContinuousRecording) {
  const std::vector<std::string> image = flowList(readText(kContainerDir / "Dockerfile"), "CMD");
  const std::vector<std::string> node = flowList(readText(kContainerDir / "k8s/daemonset.yaml"), "args:");
  const std::vector<std::string> sidecar = flowList(readText(kContainerDir / "k8s/sidecar-pod.yaml"), "args:");
  ASSERT_FALSE(image.empty());
  for (const auto* command : {&image, &node, &sidecar}) {
    const std::string text = std::accumulate(command->begin(), command->end(), std::string(),
                                             [](std::string a, const std::string& b) { return a + " " + b; });
    EXPECT_TRUE(text.starts_with(" record --all --rotate ")) << text;
    EXPECT_NE(text.find(" --max-age "), std::string::npos) << text;
  }
  EXPECT_EQ(std::vector<std::string>(node.begin(), node.end() - 1), std::vector<std::string>(image.begin(), image.end() - 1))
      << "the DaemonSet runs the image's command, in a directory per node";
  EXPECT_EQ(node.back(), "/out/$(NODE_NAME)");

  if (::geteuid() != 0) GTEST_SKIP() << "running the command needs root";
  char scratch[] = "/tmp/jfrbpf-discovery-cmd-XXXXXX";
  ASSERT_NE(::mkdtemp(scratch), nullptr);
  std::string command = quoted((fs::path(test::kBinaryDir) / "userspace/cli/jfrbpf").string());
  for (size_t i = 0; i + 1 < image.size(); ++i) command += " " + quoted(image[i]);
  command += " " + quoted(std::string(scratch) + "/out") + " -d 2s";
  CommandResult result = runShell(command);
  fs::remove_all(scratch);
  if (result.output.find("not permitted") != std::string::npos) GTEST_SKIP() << "no BPF here: " << result.output;
  EXPECT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("jfrbpf: recorded "), std::string::npos) << result.output;
}

}  // namespace
}  // namespace jfrbpf::discovery
