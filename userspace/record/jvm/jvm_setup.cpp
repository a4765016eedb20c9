#include "userspace/record/jvm/jvm_setup.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "base/error.h"

namespace jfrbpf::record {
namespace {

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

void publishJvm(JvmConnection& jvm, JvmKernelSide& sampler, std::vector<std::string>& notes) {
  std::string whyNot;
  if (!jvm.publish(sampler, whyNot)) {
    keepNote("JVM " + std::to_string(jvm.pid()) + ": Java frames may be incomplete: " + whyNot, notes);
  }
}

void instrument(JvmConnection& jvm, JvmKernelSide& sampler, const Instrumentation& request, uint32_t slotBase,
                uint32_t slotLimit, std::vector<std::string>& notes) {
  try {
    jvm.startTiming(sampler, request.methods, request.virtualWaitIntervalNs, slotBase, slotLimit, kAgentRequestTimeout);
    if (request.methods.enabled()) std::fprintf(stderr, "jfrbpf: %s\n", describeInstrumentation(jvm).c_str());
    const std::vector<jvm::TimingSkip>& skips = jvm.model().timedMethods().skips();
    for (size_t i = 0; i < skips.size(); ++i) {
      const jvm::TimingSkip& skip = skips[i];
      std::string what = skip.className + (skip.methodName.empty() ? "" : "::" + skip.methodName + skip.descriptor);
      notes.push_back("JVM " + std::to_string(jvm.pid()) + ": not instrumented: " + what + ": " + skip.reason);
      if (i < 5) std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
    }
  } catch (const Error& e) {
    notes.push_back(std::string(e.what()) + ": recording without " + request.what() + " there");
    std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
  }
}

}  // namespace jfrbpf::record
