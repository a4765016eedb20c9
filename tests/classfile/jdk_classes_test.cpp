// Real-world input: every class of jdk.compiler, java.xml and java.base's internal packages, taken out of
// the JDK's own runtime image, instrumented in every method and then linked (so verified) by HotSpot under
// -Xverify:all in a child-first class loader, next to the originals linked the same way.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "test_config.h"
#include "tests/classfile/test_support.h"
#include "tests/support/child_process.h"

namespace jfrbpf::classfile::testing {
namespace {

namespace fs = std::filesystem;
using jfrbpf::test::run;
using jfrbpf::test::RunResult;

// What LinkCheck printed: class name -> "OK", "VERIFY ..." or "OTHER ..." (linkage problems unrelated to
// the bytecode, such as a superclass in a package its module does not export).
std::map<std::string, std::string> linkResults(const std::string& output) {
  std::map<std::string, std::string> results;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    std::string status = line.substr(0, space);
    if (status != "OK" && status != "VERIFY" && status != "OTHER") continue;
    size_t nameEnd = line.find(' ', space + 1);
    results[line.substr(space + 1, nameEnd == std::string::npos ? std::string::npos : nameEnd - space - 1)] = line;
  }
  return results;
}

std::string classNames(const fs::path& moduleDirectory) {
  std::string names;
  for (const fs::path& relative : classFiles(moduleDirectory)) {
    std::string name = relative.string();
    if (name == "module-info.class" || name.starts_with("java/")) continue;  // java.* cannot be redefined
    name.resize(name.size() - 6);
    for (char& c : name) c = c == '/' ? '.' : c;
    names += name + "\n";
  }
  return names;
}

void checkJdk(const std::string& jdk, const std::string& label) {
  fs::path root = scratchDirectory("jdk-classes-" + label);
  fs::path hooks = root / "hooks";
  fs::path javaRoot = fs::path(jfrbpf::test::kSourceDir) / "tests" / "classfile" / "java" / "jfrbpf";
  ASSERT_EQ(compileJava(jdk, "", javaSources(javaRoot), hooks), "");
  RunResult extract = run({jdk + "/bin/jimage", "extract", "--dir", (root / "original").string(), "--include",
                           "regex:/(java\\.base/(sun|jdk)|java\\.xml|jdk\\.compiler)/.*\\.class", jdk + "/lib/modules"},
                          kToolTimeout);
  ASSERT_EQ(extract.exitCode, 0) << extract.output;

  size_t classes = 0, methods = 0, linked = 0, compared = 0;
  double micros = 0, maxMicros = 0;
  uint32_t widened = 0;
  std::map<std::string, size_t> skipReasons;
  for (const auto& module : fs::directory_iterator(root / "original")) {
    const std::string name = module.path().filename().string();
    fs::path rewritten = root / "rewritten" / name;
    TreeRewrite tree = rewriteTree(module.path(), rewritten, kTestHooks, 0);
    EXPECT_TRUE(tree.classErrors.empty()) << ::testing::PrintToString(tree.classErrors);
    classes += tree.classes;
    methods += tree.methodByIndex.size();
    micros += tree.totalMicros;
    maxMicros = std::max(maxMicros, tree.maxMicros);
    widened += tree.stats.widenedBranches;
    for (const std::string& skip : tree.skipped) {
      std::string reason = skip.substr(skip.find(": ") + 2);
      ++skipReasons[reason];
      EXPECT_NE(reason.find("no bytecode"), std::string::npos) << skip;
    }

    fs::path list = root / (name + ".names");
    writeText(list, classNames(module.path()));
    const std::string java = jdk + "/bin/java";
    RunResult before = run(
        {java, "-Xverify:all", "-cp", hooks.string(), "jfrbpf.test.LinkCheck", module.path().string(), list.string()},
        kToolTimeout);
    RunResult after = run(
        {java, "-Xverify:all", "-cp", hooks.string(), "jfrbpf.test.LinkCheck", rewritten.string(), list.string()},
        kToolTimeout);
    ASSERT_EQ(before.exitCode, 0) << before.output.substr(0, 2000);
    ASSERT_EQ(after.exitCode, 0) << after.output.substr(0, 2000);
    std::map<std::string, std::string> original = linkResults(before.output);
    std::map<std::string, std::string> instrumented = linkResults(after.output);
    EXPECT_EQ(original.size(), instrumented.size());
    for (const auto& [className, line] : instrumented) {
      EXPECT_FALSE(line.starts_with("VERIFY")) << line;
      if (original[className].starts_with("OK")) {
        ++compared;
        EXPECT_TRUE(line.starts_with("OK")) << "original linked, instrumented did not: " << line;
      }
      linked += line.starts_with("OK");
    }
  }
  EXPECT_GT(linked, 3000u) << "too few classes could be checked";
  EXPECT_EQ(linked, compared);
  std::ostringstream figures;
  figures << label << ": " << classes << " classes, " << methods << " methods instrumented, " << linked
          << " linked under -Xverify:all; rewrite " << micros / static_cast<double>(classes) << " us/class average, "
          << maxMicros << " us max; " << widened << " branches widened";
  for (const auto& [reason, count] : skipReasons) figures << "; skipped " << count << "x: " << reason;
  std::cout << figures.str() << "\n";
  ::testing::Test::RecordProperty("figures", figures.str());
  if (!::testing::Test::HasFailure()) fs::remove_all(root);  // ~100 MB; kept when there is something to look at
}

TEST(ClassfileJdkClasses, Jdk17ClassesInstrumentedAndVerified) { checkJdk(jfrbpf::test::kJdkHome, "jdk17"); }

TEST(ClassfileJdkClasses, Jdk25ClassesInstrumentedAndVerified) {
  if (*jfrbpf::test::kJdk25Home == '\0') GTEST_SKIP() << "no JDK 25 installed";
  checkJdk(jfrbpf::test::kJdk25Home, "jdk25");
}

}  // namespace
}  // namespace jfrbpf::classfile::testing
