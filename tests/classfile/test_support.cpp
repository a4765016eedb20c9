#include "tests/classfile/test_support.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "test_config.h"
#include "tests/support/child_process.h"

namespace jfrbpf::classfile::testing {

namespace fs = std::filesystem;

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
  jfrbpf::test::RunResult result = jfrbpf::test::run(argv, kToolTimeout);
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
