#include "tests/jfrreader/jdk_recordings.h"

#include <fcntl.h>
#include <sys/file.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "base/unique_fd.h"
#include "test_config.h"
#include "tests/jfrreader/process.h"

namespace jfrbpf::jfr::testing {
namespace fs = std::filesystem;

namespace {

fs::path workDir() { return fs::path(jfrbpf::test::kBinaryDir) / "tests" / "jfrreader" / "jdk"; }
fs::path workloadSource() { return fs::path(jfrbpf::test::kSourceDir) / "tests" / "jfrreader" / "JfrReaderWorkload.java"; }

bool upToDate(const fs::path& output, const fs::path& input) {
  std::error_code ec;
  return fs::exists(output, ec) && fs::last_write_time(output, ec) >= fs::last_write_time(input, ec);
}

void run(const std::string& command, const std::string& what) {
  auto result = runCommand(command + " 1>&2");
  if (result.exitCode != 0) throw std::runtime_error(what + " failed (exit " + std::to_string(result.exitCode) + "): " + command);
}

}  // namespace

JdkRecording recordWorkload(const std::string& jdkHome, const std::string& name, const std::string& recordingOptions) {
  fs::create_directories(workDir());
  UniqueFd lock(::open((workDir() / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!lock || ::flock(lock.get(), LOCK_EX) != 0) throw std::runtime_error("cannot lock " + workDir().string());

  fs::path classFile = workDir() / "JfrReaderWorkload.class";
  if (!upToDate(classFile, workloadSource())) {
    // javac of the test JDK (17): its class files run on every later JDK too.
    run(shellQuote(std::string(jfrbpf::test::kJdkHome) + "/bin/javac") + " -d " + shellQuote(workDir()) + " " +
            shellQuote(workloadSource()),
        "compiling the workload");
  }
  fs::path output = workDir() / (name + ".jfr");
  // The JDK and options that made the file, so changing either records it again.
  std::string recipe = jdkHome + "\n" + recordingOptions + "\n";
  fs::path recipeFile = workDir() / (name + ".recipe");
  std::ifstream recipeIn(recipeFile);
  std::string previousRecipe((std::istreambuf_iterator<char>(recipeIn)), std::istreambuf_iterator<char>());
  if (!upToDate(output, classFile) || previousRecipe != recipe) {
    fs::path partial = workDir() / (name + ".partial.jfr");
    fs::remove(partial);
    run("cd " + shellQuote(workDir()) + " && " + shellQuote(jdkHome + "/bin/java") +
            " -Xlog:disable -XX:StartFlightRecording=" + recordingOptions + ",filename=" + shellQuote(partial) +
            " -cp . JfrReaderWorkload 2000",
        "recording with " + jdkHome);
    fs::rename(partial, output);
    std::ofstream(recipeFile, std::ios::trunc) << recipe;
  }
  return {output, jdkHome + "/bin/jfr"};
}

Summary jfrSummary(const JdkRecording& recording) {
  auto result = runCommand(shellQuote(recording.jfrTool) + " summary " + shellQuote(recording.path));
  if (result.exitCode != 0) throw std::runtime_error("jfr summary failed for " + recording.path);
  Summary summary;
  std::istringstream lines(result.output);
  bool table = false;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "Chunks:") words >> summary.chunks;
    if (first.starts_with("===")) {
      table = true;
      continue;
    }
    long count = 0;
    // Metadata and checkpoint records are counted too (JDK 25 spells it jdk.Checkpoint); they are no events.
    bool internal = first == "jdk.Metadata" || first == "jdk.CheckPoint" || first == "jdk.Checkpoint";
    if (table && words >> count && !internal) summary.counts[first] = count;
  }
  return summary;
}

std::string jfrPrintJson(const JdkRecording& recording) {
  auto result =
      runCommand(shellQuote(recording.jfrTool) + " print --json --stack-depth 4096 " + shellQuote(recording.path));
  if (result.exitCode != 0) throw std::runtime_error("jfr print --json failed for " + recording.path);
  return result.output;
}

}  // namespace jfrbpf::jfr::testing
