// `jfrbpf record --all` names each JVM's file after the service.name it publishes in its OpenTelemetry process
// context (OTEP 4719), and the file holds that context: a JVM publishing through the tests' writer over JNI.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/record/bpf_test_support.h"
#include "tests/record/record_test_support.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;

TEST(ProcessContextAll, AJvmsFileIsNamedAfterItsServiceAndHoldsItsContext) {
  JFRBPF_REQUIRE_BPF();
  ScratchDir dir("process-context-all");
  ChildProcess jvm({jdkTool("java"), "-Xmx64m", "-cp", OTEL_JAVA_CLASSES, "OtelContextApp", OTEL_WRITER_JNI,
                    "checkout"});
  ASSERT_TRUE(jvm.awaitLine("published", 60s).has_value());
  const std::string out = dir.file("all");
  const RunResult recorded = run({jfrbpfBinary(), "record", "--all", "-d", "5s", "-o", out});
  ASSERT_EQ(recorded.exitCode, 0) << recorded.output;

  const std::string expected = (std::filesystem::path(out) / (std::to_string(jvm.pid()) + "-checkout.jfr")).string();
  ASSERT_TRUE(std::filesystem::exists(expected)) << recorded.output;
  const RunResult printed = run({jdkTool("jfr"), "print", "--events", "jfrbpf.ProcessContext", expected});
  ASSERT_EQ(printed.exitCode, 0) << printed.output;
  EXPECT_NE(printed.output.find("serviceName = \"checkout\""), std::string::npos) << printed.output;
  EXPECT_NE(printed.output.find("telemetry.sdk.language=java"), std::string::npos) << printed.output;
}

}  // namespace
}  // namespace jfrbpf::test
