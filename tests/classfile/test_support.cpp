#include "tests/classfile/test_support.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "base/unique_fd.h"
#include "test_config.h"

extern char** environ;

namespace jfrbpf::classfile::testing {

namespace fs = std::filesystem;

ProcessResult runProcess(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  UniqueFd readEnd(fds[0]);
  UniqueFd writeEnd(fds[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, writeEnd.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, writeEnd.get(), STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int error = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  writeEnd.reset();
  ProcessResult result;
  if (error != 0) {
    result.output = "cannot run " + argv[0];
    return result;
  }
  char buffer[65536];
  ssize_t n;
  while ((n = read(readEnd.get(), buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) result.output.append(buffer, static_cast<size_t>(n));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::vector<uint8_t> readBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string readText(const fs::path& path) {
  std::vector<uint8_t> bytes = readBytes(path);
  return {bytes.begin(), bytes.end()};
}

void writeText(const fs::path& path, const std::string& text) {
  writeBytes(path, std::vector<uint8_t>(text.begin(), text.end()));
}

fs::path scratchDirectory(const std::string& name) {
  fs::path directory = fs::path(jfrbpf::test::kBinaryDir) / "tests" / "classfile" / "scratch" / name;
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory;
}

static std::vector<fs::path> filesWithExtension(const fs::path& directory, const std::string& extension) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(directory)) {
    if (entry.is_regular_file() && entry.path().extension() == extension) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<fs::path> javaSources(const fs::path& directory) { return filesWithExtension(directory, ".java"); }

std::vector<fs::path> classFiles(const fs::path& directory) {
  std::vector<fs::path> files;
  for (const fs::path& file : filesWithExtension(directory, ".class")) files.push_back(fs::relative(file, directory));
  return files;
}

std::string compileJava(const std::string& jdkHome, const std::string& release, const std::vector<fs::path>& sources,
                        const fs::path& outputDirectory) {
  // -g: local variable tables (and their generic twins) too, which the rewriter must move.
  std::vector<std::string> argv = {jdkHome + "/bin/javac", "-g", "-nowarn", "-Xlint:-options", "-d",
                                   outputDirectory.string()};
  if (!release.empty()) argv.insert(argv.end(), {"--release", release});
  for (const fs::path& source : sources) argv.push_back(source.string());
  ProcessResult result = runProcess(argv);
  return result.exitCode == 0 ? std::string() : "javac failed:\n" + result.output;
}

TreeRewrite rewriteTree(const fs::path& from, const fs::path& to, const std::string& hookClass, int32_t firstIndex,
                        const std::function<bool(const ClassInfo&, const MethodInfo&)>& wanted) {
  TreeRewrite tree;
  int32_t next = firstIndex;
  HookConfig hooks{hookClass, "enter", "exit", kTestRecording};
  for (const fs::path& relative : classFiles(from)) {
    std::vector<uint8_t> bytes = readBytes(from / relative);
    auto select = [&](const ClassInfo& info, const MethodInfo& method) -> std::optional<int32_t> {
      if (wanted && !wanted(info, method)) return std::nullopt;
      return next++;
    };
    auto start = std::chrono::steady_clock::now();
    RewriteResult result = rewriteClass(bytes, hooks, select);
    double micros = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    tree.totalMicros += micros;
    tree.maxMicros = std::max(tree.maxMicros, micros);
    ++tree.classes;
    if (!result.error.empty()) tree.classErrors.push_back(relative.string() + ": " + result.error);
    for (const InstrumentedMethod& m : result.instrumented) {
      tree.methodByIndex[m.index] = m.className + "." + m.methodName + m.descriptor;
    }
    for (const SkippedMethod& s : result.skipped) {
      tree.skipped.push_back(relative.string() + " " + s.methodName + s.descriptor + ": " + s.reason);
    }
    tree.stats.widenedBranches += result.stats.widenedBranches;
    tree.stats.insertedFrames += result.stats.insertedFrames;
    writeBytes(to / relative, result.modified() ? result.bytes : bytes);
  }
  return tree;
}

}  // namespace jfrbpf::classfile::testing
