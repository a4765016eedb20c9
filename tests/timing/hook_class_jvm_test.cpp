// The agent's hook class (jvmsupport/agent/java/jfrbpf/agent/MethodTimer.java), as embedded in the agent,
// run in real JVMs by tests/timing/java/MethodTimerCheck.java on a table it allocates: every invocation
// counted in its thread's stripe (8 threads on one method), durations, min and max, and nothing counted for
// an earlier recording's instrumentation, an untimed hook or a slot outside the table. The end-to-end tests
// run it inside jfrbpf's recordings; this checks its arithmetic where every figure is known.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "jvmsupport/agent/hook_class.h"
#include "tests/record/record_test_support.h"
#include "tests/support/child_process.h"

namespace jfrbpf::test {
namespace {

struct Stripe {
  long stripe = 0, expected = 0, invocations = 0, total = 0, min = 0, max = 0;
};

void checkOn(const std::string& jdkHome) {
  ScratchDir scratch("hook-class-jvm-" + std::filesystem::path(jdkHome).filename().string());
  const std::filesystem::path classFile = scratch.path() / "jfrbpf" / "agent" / "MethodTimer.class";
  std::filesystem::create_directories(classFile.parent_path());
  std::ofstream(classFile, std::ios::binary)
      .write(reinterpret_cast<const char*>(agent::kMethodTimerClass), static_cast<std::streamsize>(agent::kMethodTimerClass_size));
  const std::string classPath = scratch.path().string() + ":" + JFRBPF_HOOK_CHECK_CLASSES;
  RunResult result = run({jdkHome + "/bin/java", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-cp",
                          classPath, "MethodTimerCheck"},
                         std::chrono::seconds(120));
  ASSERT_EQ(result.exitCode, 0) << result.output;

  std::vector<Stripe> stripes;
  long bad = -1, elsewhere = -1;
  std::istringstream lines(result.output);
  for (std::string line; std::getline(lines, line);) {
    Stripe s;
    if (std::sscanf(line.c_str(), "stripe %ld expected %ld invocations %ld total %ld min %ld max %ld", &s.stripe,
                    &s.expected, &s.invocations, &s.total, &s.min, &s.max) == 6) {
      stripes.push_back(s);
    } else {
      std::sscanf(line.c_str(), "bad %ld elsewhere %ld", &bad, &elsewhere);
    }
  }
  ASSERT_FALSE(stripes.empty()) << result.output;
  long invocations = 0, longest = 0;
  for (const Stripe& s : stripes) {
    EXPECT_EQ(s.invocations, s.expected) << "stripe " << s.stripe << ": each call in its thread's stripe, once";
    EXPECT_GE(s.min, 1'000) << "every call began 1 µs or more before its exit";
    EXPECT_GE(s.total, s.invocations * 1'000);
    EXPECT_GE(s.max, s.min);
    invocations += s.invocations;
    longest = std::max(longest, s.max);
  }
  EXPECT_EQ(invocations, 8 * 100'000 + 1) << result.output;
  EXPECT_GE(longest, 2'000'000) << "the 2-ms call is the maximum of its stripe";
  EXPECT_EQ(bad, 1) << "the slot outside the table";
  EXPECT_EQ(elsewhere, 0) << "nothing in the other slots";
  EXPECT_GE(stripes.size(), 2u) << "8 threads with consecutive ids share no stripe with all the others";
}

TEST(HookClassInJvm, CountsEveryCallInItsThreadsStripeOnJdk17) { checkOn(kJdkHome); }

TEST(HookClassInJvm, CountsEveryCallInItsThreadsStripeOnJdk25) {
  const std::string jdk25 = kJdk25Home;
  if (jdk25.empty() || !std::filesystem::exists(jdk25 + "/bin/java")) GTEST_SKIP() << "no JDK 25 installed";
  checkOn(jdk25);
}

}  // namespace
}  // namespace jfrbpf::test
