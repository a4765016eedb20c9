#include "tests/java_e2e/workloads.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "test_config.h"
#include "tests/support/readable_paths.h"

namespace jfrbpf::test {

using namespace std::chrono_literals;

namespace {

// A JDK of `feature` in the standard JVM directory, found by its `release` file; "" if there is none.
std::string installedJdk(int feature) {
  std::error_code ec;
  const std::string wanted = "JAVA_VERSION=\"" + std::to_string(feature);
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/jvm", ec)) {
    std::ifstream release(entry.path() / "release");
    for (std::string line; std::getline(release, line);) {
      if (line.starts_with(wanted) && (line.size() == wanted.size() || line[wanted.size()] == '.' ||
                                       line[wanted.size()] == '"')) {
        return entry.path().string();
      }
    }
  }
  return "";
}

}  // namespace

std::string jdkHome(int feature) {
  // JDK 17 and 25 are the build's; any other (21, for virtual threads before JDK 24) is used where installed.
  std::string home = feature == 17 ? kJdkHome : feature == 25 ? kJdk25Home : installedJdk(feature);
  if (home.empty() || access((home + "/bin/java").c_str(), X_OK) != 0) return "";
  return home;
}

std::string javaBinary(int feature) { return jdkHome(feature) + "/bin/java"; }

std::string workloadClasses() { return JAVA_E2E_CLASSES; }
std::string jniLibraryDir() { return JAVA_E2E_JNI_DIR; }
std::string nativeChainBinary() { return JAVA_E2E_NATIVE_CHAIN; }

int taggedLine(const std::string& file, const std::string& tag) {
  std::ifstream in(std::string(JAVA_E2E_SOURCES) + "/" + file);
  std::string marker = "// LINE:" + tag;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    size_t at = line.find(marker);
    // The tag must end there: "LINE:a" must not match "LINE:a-calls-b".
    if (at != std::string::npos && (at + marker.size() == line.size() || line[at + marker.size()] == ' ')) {
      return number;
    }
  }
  ADD_FAILURE() << "no line tagged LINE:" << tag << " in " << file;
  return -2;
}

std::string jdkTestName(const ::testing::TestParamInfo<int>& info) { return "Jdk" + std::to_string(info.param); }

LineRange bodyLines(const std::string& file, const std::string& declTag, const std::string& lastTag) {
  return {taggedLine(file, declTag) + 1, taggedLine(file, lastTag)};
}

bool addAnnouncedThread(const std::string& line, WorkerThreads& threads) {
  char name[64];
  long long tid = 0, javaId = 0;
  int fields = std::sscanf(line.c_str(), "ready %63s %lld %lld", name, &tid, &javaId);
  if (fields < 2) return false;
  threads[name] = {tid, fields == 3 ? javaId : 0};
  return true;
}

WorkerThreads announcedThreads(const std::string& output) {
  WorkerThreads threads;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) addAnnouncedThread(line, threads);
  return threads;
}

Workload::Workload(const std::vector<std::string>& argv, size_t workers)
    : process_(std::make_unique<ChildProcess>(argv, ChildOptions{.captureStderr = true, .extraEnv = {}})) {
  std::string seen;
  while (threads_.size() < workers) {
    auto line = process_->readLine(60s);
    if (!line) break;
    if (!addAnnouncedThread(*line, threads_)) seen += *line + "\n";
  }
  EXPECT_EQ(threads_.size(), workers) << "the workload did not announce its threads; it printed:\n" << seen;
}

int64_t Workload::tid(const std::string& name) const {
  auto it = threads_.find(name);
  return it == threads_.end() ? -1 : it->second.tid;
}

std::vector<std::string> javaCommand(int feature, const std::vector<std::string>& options, const std::string& mainClass,
                                     const std::vector<std::string>& args, const std::vector<std::string>& runAs) {
  std::vector<std::string> argv = runAs;
  argv.push_back(javaBinary(feature));
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"-cp", workloadClasses(), mainClass});
  argv.insert(argv.end(), args.begin(), args.end());
  if (!runAs.empty()) makeJavaPathsReadable(argv);
  return argv;
}

RunResult recordPid(pid_t pid, const std::string& out, const std::string& duration,
                    const std::vector<std::string>& extra, const std::vector<std::string>& extraEnv) {
  std::vector<std::string> argv{jfrbpfBinary(), "record", "-p", std::to_string(pid), "-d", duration, "-o", out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv, std::chrono::seconds(120), extraEnv);
}

std::vector<std::string> linesWith(const std::string& text, const std::string& needle) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(needle) != std::string::npos) out.push_back(line);
  }
  return out;
}

std::optional<uint64_t> debugCounter(const std::string& output, const std::string& name) {
  std::vector<std::string> lines = linesWith(output, "[debug] " + name + " ");
  if (lines.size() != 1) return std::nullopt;
  try {
    return std::stoull(lines[0].substr(lines[0].find("[debug] ") + 8 + name.size()));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace jfrbpf::test
