#pragma once
// The programs the end-to-end tests profile and how they are run: the JDKs under test, the built Java
// workloads (tests/java_e2e/java, with "LINE:<tag>" comments on the lines the tests look up) and native
// programs, and `jfrbpf record` itself.
#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/record/bpf_test_support.h"
#include "tests/record/record_test_support.h"  // jfrbpfBinary(), ScratchDir
#include "tests/support/child_process.h"

namespace jfrbpf::test {

// The JDK of a feature release the suite runs workloads on: 17 (the build's JDK) or 25 (when installed).
std::string jdkHome(int feature);  // "" when that JDK is not installed
std::string javaBinary(int feature);

// Skips the current test unless BPF works here and the JDK is installed.
#define JAVA_E2E_REQUIRE(feature)                                                                             \
  do {                                                                                                        \
    std::string reason = ::jfrbpf::test::bpfUnavailableReason();                                              \
    if (!reason.empty()) GTEST_SKIP() << reason;                                                              \
    if (::jfrbpf::test::jdkHome(feature).empty()) GTEST_SKIP() << "JDK " << (feature) << " is not installed"; \
  } while (0)

std::string workloadClasses();    // the compiled tests/java_e2e/java/*.java
std::string jniLibraryDir();      // holds libjavae2e_jni.so
std::string nativeChainBinary();  // native/native_chain.c

// Names the instances of a test parameterized by JDK feature release: Jdk17, Jdk25.
std::string jdkTestName(const ::testing::TestParamInfo<int>& info);

// The line of tests/java_e2e/java/<file> that carries the comment "LINE:<tag>"; fails the test if absent.
int taggedLine(const std::string& file, const std::string& tag);

// Lines of a method's body: after the line tagged `declTag` (its declaration) up to the one tagged `lastTag`.
struct LineRange {
  int first = 0, last = -1;
  bool contains(int line) const { return line >= first && line <= last; }
};
LineRange bodyLines(const std::string& file, const std::string& declTag, const std::string& lastTag);

struct WorkerThread {
  int64_t tid = 0;
  int64_t javaThreadId = 0;  // 0 for native programs
};

using WorkerThreads = std::map<std::string, WorkerThread>;  // by thread name

// Workloads announce each thread as "ready <name> <tid> [<javaThreadId>]". Adds the thread if `line` is
// such an announcement.
bool addAnnouncedThread(const std::string& line, WorkerThreads& threads);
WorkerThreads announcedThreads(const std::string& output);

// A workload process, killed and reaped when destroyed.
class Workload {
 public:
  // Waits (bounded) for `workers` announcements.
  Workload(const std::vector<std::string>& argv, size_t workers);
  pid_t pid() const { return process_->pid(); }
  const WorkerThreads& threads() const { return threads_; }
  int64_t tid(const std::string& name) const;

 private:
  std::unique_ptr<ChildProcess> process_;
  WorkerThreads threads_;
};

// `java <options> -cp <workloads> <mainClass> <args>` of the given JDK, prefixed by `runAs` (e.g. setpriv).
std::vector<std::string> javaCommand(int feature, const std::vector<std::string>& options, const std::string& mainClass,
                                     const std::vector<std::string>& args = {},
                                     const std::vector<std::string>& runAs = {});

// `jfrbpf record -p PID -d <duration> -o <out> <extra>`.
RunResult recordPid(pid_t pid, const std::string& out, const std::string& duration,
                    const std::vector<std::string>& extra = {"--interval", "1ms"},
                    const std::vector<std::string>& extraEnv = {});

// The output lines of `text` that contain `needle`.
std::vector<std::string> linesWith(const std::string& text, const std::string& needle);

// The value of jfrbpf's "[debug] <name> <value>" line in `output` (JFRBPF_DEBUG set); nullopt unless there is
// exactly one.
std::optional<uint64_t> debugCounter(const std::string& output, const std::string& name);

}  // namespace jfrbpf::test
