#pragma once
// Helpers for the classfile tests: running JDK tools, reading and writing class files, rewriting whole
// directories of them.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "jvmsupport/classfile/rewriter.h"

namespace jfrbpf::classfile::testing {

// How long a JDK tool (javac, java, javap, jimage) may run: only a hang guard outside ctest, where the suite's
// TIMEOUT (600 s) ends a hung tool first.
inline constexpr std::chrono::minutes kToolTimeout{10};

std::vector<uint8_t> readBytes(const std::filesystem::path& path);
void writeBytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);
std::string readText(const std::filesystem::path& path);
void writeText(const std::filesystem::path& path, const std::string& text);

// A fresh, empty directory under the build tree for one test.
std::filesystem::path scratchDirectory(const std::string& name);

// Every .java file under `directory`, recursively.
std::vector<std::filesystem::path> javaSources(const std::filesystem::path& directory);
// Every .class file under `directory`, recursively, as paths relative to it.
std::vector<std::filesystem::path> classFiles(const std::filesystem::path& directory);

// javac from `jdkHome` into `outputDirectory`; `release` empty for the JDK's own. Returns javac's output
// on failure, empty on success.
std::string compileJava(const std::string& jdkHome, const std::string& release,
                        const std::vector<std::filesystem::path>& sources,
                        const std::filesystem::path& outputDirectory);

// The result of rewriting every class of a directory tree.
struct TreeRewrite {
  std::map<int32_t, std::string> methodByIndex;  // "pkg/Class.name(desc)"
  std::vector<std::string> skipped;              // "pkg/Class.name(desc): reason"
  std::vector<std::string> classErrors;          // "path: error"
  RewriteStats stats;
  size_t classes = 0;
  double totalMicros = 0;  // time spent in rewriteClass
  double maxMicros = 0;
};

// Rewrites every class under `from` into the same place under `to`, instrumenting every method that
// `wanted` accepts (all of them by default) with indices from `firstIndex` up. Classes the rewriter
// leaves untouched are copied.
TreeRewrite rewriteTree(const std::filesystem::path& from, const std::filesystem::path& to,
                        const std::string& hookClass, int32_t firstIndex,
                        const std::function<bool(const ClassInfo&, const MethodInfo&)>& wanted = {});

inline constexpr const char* kTestHooks = "jfrbpf/test/Hooks";
inline constexpr int32_t kTestRecording = 40000;  // Hooks.RECORDING

}  // namespace jfrbpf::classfile::testing
