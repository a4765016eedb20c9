#include "userspace/record/jvm_setup.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "userspace/attach/attach_error.h"
#include "userspace/base/error.h"

namespace jfrbpf::record {
namespace {

// Instrumenting can retransform thousands of classes when a filter names a method of every class.
constexpr std::chrono::seconds kTimingTimeout{120};

std::string describeInstrumentation(const JvmConnection& connection) {
  size_t timed = 0, traced = 0;
  connection.model().timedMethods().forEach([&](const jvm::TimedMethodInfo& m) {
    timed += m.timed() ? 1 : 0;
    traced += m.traced() ? 1 : 0;
  });
  const jvm::TimingStatusInfo& status = *connection.model().timedMethods().status();
  std::string text = "JVM " + std::to_string(connection.pid()) + ": instrumented " +
                     std::to_string(status.classesInstrumented) +
                     (status.classesInstrumented == 1 ? " class" : " classes") + " (" + std::to_string(timed) +
                     " timed, " + std::to_string(traced) + " traced methods)";
  if (status.methodsSkipped + status.classesFailed > 0) {
    text += ", " + std::to_string(status.methodsSkipped) + " methods and " + std::to_string(status.classesFailed) +
            " classes left alone";
  }
  return text;
}

void keepNote(std::string note, std::vector<std::string>& notes) {
  std::fprintf(stderr, "jfrbpf: %s\n", note.c_str());
  notes.push_back(std::move(note));
}

}  // namespace

bool isJavaLauncher(const std::string& program) { return std::filesystem::path(program).filename() == "java"; }

std::unique_ptr<JvmConnection> attachJvm(pid_t pid, std::vector<std::string>& notes) {
  // A JVM found in its first moments (record --all sees it as soon as its hsperfdata appears) has no SIGQUIT
  // handler yet: asking then could kill it, so ask again until it has one, for a while.
  constexpr auto kNotReadyRetry = std::chrono::milliseconds(200);
  constexpr int kNotReadyAttempts = 50;
  try {
    for (int attempt = 1;; ++attempt) {
      try {
        std::unique_ptr<JvmConnection> jvm = JvmConnection::attach(pid, kAgentTimeout);
        if (!jvm->note().empty()) std::fprintf(stderr, "jfrbpf: %s\n", jvm->note().c_str());
        return jvm;
      } catch (const attach::AttachError& e) {
        if (e.kind() != attach::AttachFailure::NotReady || attempt == kNotReadyAttempts) throw;
      }
      std::this_thread::sleep_for(kNotReadyRetry);
    }
  } catch (const attach::AttachError& e) {
    keepNote(e.kind() == attach::AttachFailure::NotHotSpot
                 ? "process " + std::to_string(pid) + " is not a HotSpot JVM: recording native and kernel frames"
                 : "process " + std::to_string(pid) + ": Java frames unavailable (" + e.what() +
                       "): recording native and kernel frames only",
             notes);
  } catch (const Error& e) {
    keepNote("process " + std::to_string(pid) + ": Java frames unavailable (" + e.what() +
                 "): recording native and kernel frames only",
             notes);
  }
  return nullptr;
}

void publishJvm(JvmConnection& jvm, BpfSampler& sampler, std::vector<std::string>& notes) {
  std::string whyNot;
  if (!jvm.publish(sampler, whyNot)) {
    keepNote("JVM " + std::to_string(jvm.pid()) + ": Java frames may be incomplete: " + whyNot, notes);
  }
}

std::unique_ptr<JvmConnection> connectJvm(pid_t pid, BpfSampler& sampler, std::vector<std::string>& notes) {
  std::unique_ptr<JvmConnection> jvm = attachJvm(pid, notes);
  if (jvm) publishJvm(*jvm, sampler, notes);
  return jvm;
}

void startTiming(JvmConnection& jvm, BpfSampler& sampler, const timing::MethodTimingOptions& options, uint32_t slotBase,
                 uint32_t slotLimit, std::vector<std::string>& notes) {
  try {
    jvm.startTiming(sampler, options, slotBase, slotLimit, kTimingTimeout);
    std::fprintf(stderr, "jfrbpf: %s\n", describeInstrumentation(jvm).c_str());
    const std::vector<jvm::TimingSkip>& skips = jvm.model().timedMethods().skips();
    for (size_t i = 0; i < skips.size(); ++i) {
      const jvm::TimingSkip& skip = skips[i];
      std::string what = skip.className + (skip.methodName.empty() ? "" : "::" + skip.methodName + skip.descriptor);
      notes.push_back("JVM " + std::to_string(jvm.pid()) + ": not instrumented: " + what + ": " + skip.reason);
      if (i < 5) std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
    }
  } catch (const Error& e) {
    notes.push_back(std::string(e.what()) + ": recording without method timing there");
    std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
  }
}

}  // namespace jfrbpf::record
