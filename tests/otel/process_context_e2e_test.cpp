// `jfrbpf record -p` of a process that publishes its OpenTelemetry process context (OTEP 4719) through the
// tests' own writer, and publishes another while it is recorded: the recorder says the first, and the file
// has both, as jfrbpf.ProcessContext events the JDK's `jfr` prints with their fields.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <optional>
#include <string>

#include "tests/record/bpf_test_support.h"
#include "tests/record/record_test_support.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;

std::string contextPublisher() { return std::string(kBinaryDir) + "/tests/otel/context_publisher"; }

TEST(ProcessContextE2E, TheFileHasEveryContextTheTargetPublished) {
  JFRBPF_REQUIRE_BPF();
  ScratchDir dir("process-context");
  // It publishes "checkout" at once, and "payments" when told to, once the recorder has read the first.
  ChildProcess publisher({contextPublisher(), "checkout", "payments"}, {.writableStdin = true});
  ASSERT_TRUE(publisher.awaitLine("published", 10s).has_value());
  const std::string out = dir.file("context.jfr");
  ChildProcess recorder({jfrbpfBinary(), "record", "-p", std::to_string(publisher.pid()), "-o", out},
                        {.captureStderr = true});
  std::string said;
  ASSERT_TRUE(recorder.readUntil("publishes its OpenTelemetry process context: service checkout", 60s, said)) << said;
  publisher.writeLine("update");
  ASSERT_TRUE(publisher.awaitLine("updated", 10s).has_value());
  recorder.signal(SIGINT);  // the recorder looks at the contexts once more as it stops
  const std::optional<int> code = recorder.wait(60s);
  said += recorder.readAll(1s);
  ASSERT_TRUE(code.has_value());
  ASSERT_EQ(*code, 0) << said;

  const RunResult printed = run({jdkTool("jfr"), "print", "--events", "jfrbpf.ProcessContext", out});
  ASSERT_EQ(printed.exitCode, 0) << printed.output;
  const size_t first = printed.output.find("serviceName = \"checkout\"");
  const size_t second = printed.output.find("serviceName = \"payments\"");
  ASSERT_NE(first, std::string::npos) << printed.output;
  ASSERT_NE(second, std::string::npos) << "the update was read: " << printed.output;
  EXPECT_LT(first, second) << "in the order they were published";
  EXPECT_NE(printed.output.find("resource = \"service.name=checkout, deployment.environment.name=test\""),
            std::string::npos)
      << printed.output;
  // Where its threads keep their context: its own TLS, which it exports.
  EXPECT_NE(printed.output.find("threadContext = \"tls_v1: 0=http.route, 1=http.method; otel_thread_ctx_v1 in " +
                                contextPublisher() + ": static TLS at the thread pointer - 0x"),
            std::string::npos)
      << printed.output;
  EXPECT_NE(printed.output.find("pid = " + std::to_string(publisher.pid())), std::string::npos) << printed.output;
}

TEST(ProcessContextE2E, AProcessThatPublishesNoneHasNoContextEvent) {
  JFRBPF_REQUIRE_BPF();
  ScratchDir dir("no-process-context");
  ChildProcess workload({threadsWorkload()});
  ASSERT_EQ(readyThreads(workload).size(), 4u);
  const std::string out = dir.file("none.jfr");
  const RunResult recorded = run({jfrbpfBinary(), "record", "-p", std::to_string(workload.pid()), "-d", "2s", "-o", out});
  ASSERT_EQ(recorded.exitCode, 0) << recorded.output;
  const RunResult summary = run({jdkTool("jfr"), "summary", out});
  ASSERT_EQ(summary.exitCode, 0) << summary.output;
  EXPECT_NE(summary.output.find("jfrbpf.ProcessContext"), std::string::npos) << "declared in the metadata";
  const RunResult printed = run({jdkTool("jfr"), "print", "--events", "jfrbpf.ProcessContext", out});
  EXPECT_EQ(printed.output.find("serviceName"), std::string::npos) << printed.output;
}

}  // namespace
}  // namespace jfrbpf::test
