#include "userspace/record/jvm/jvm_setup.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "base/error.h"

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

void publishJvm(JvmConnection& jvm, JvmKernelSide& sampler, std::vector<std::string>& notes) {
  std::string whyNot;
  if (!jvm.publish(sampler, whyNot)) {
    keepNote("JVM " + std::to_string(jvm.pid()) + ": Java frames may be incomplete: " + whyNot, notes);
  }
}

void startTiming(JvmConnection& jvm, JvmKernelSide& sampler, const timing::MethodTimingOptions& options,
                 uint64_t virtualWaitIntervalNs, uint32_t slotBase, uint32_t slotLimit,
                 std::vector<std::string>& notes) {
  try {
    jvm.startTiming(sampler, options, virtualWaitIntervalNs, slotBase, slotLimit, kTimingTimeout);
    if (options.enabled()) std::fprintf(stderr, "jfrbpf: %s\n", describeInstrumentation(jvm).c_str());
    const std::vector<jvm::TimingSkip>& skips = jvm.model().timedMethods().skips();
    for (size_t i = 0; i < skips.size(); ++i) {
      const jvm::TimingSkip& skip = skips[i];
      std::string what = skip.className + (skip.methodName.empty() ? "" : "::" + skip.methodName + skip.descriptor);
      notes.push_back("JVM " + std::to_string(jvm.pid()) + ": not instrumented: " + what + ": " + skip.reason);
      if (i < 5) std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
    }
  } catch (const Error& e) {
    notes.push_back(std::string(e.what()) + (options.enabled()
                                                 ? ": recording without method timing there"
                                                 : ": recording without the waits of its virtual threads"));
    std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
  }
}

void sampleAllocations(JvmConnection& jvm, JvmKernelSide& sampler, uint64_t intervalBytes, uint32_t samplesPerSecond,
                       std::vector<std::string>& notes) {
  try {
    jvm.startAllocations(sampler, intervalBytes, samplesPerSecond, kTimingTimeout);
    const std::optional<jvm::JavaModel::AllocationStatusInfo>& status = jvm.model().allocationStatus();
    if (status && !status->weightFromCounters) {
      notes.push_back("JVM " + std::to_string(jvm.pid()) + ": its threads' allocation counters are not in VMStructs: "
                      "each allocation sample weighs the sampling interval, as in JFR");
      std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
    }
  } catch (const Error& e) {
    notes.push_back(std::string(e.what()) + ": recording without allocation samples there");
    std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
  }
}

void profileLocks(JvmConnection& jvm, JvmKernelSide& sampler, int64_t thresholdNs, std::vector<std::string>& notes) {
  try {
    jvm.startLocks(sampler, static_cast<uint64_t>(thresholdNs), kTimingTimeout);
    const std::optional<jvm::JavaModel::LockStatusInfo>& status = jvm.model().lockStatus();
    if (status && !status->parks) {
      notes.push_back("JVM " + std::to_string(jvm.pid()) + ": parks are not recorded (" + status->message +
                      "): monitors only");
      std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
    }
  } catch (const Error& e) {
    notes.push_back(std::string(e.what()) + ": recording without lock events there");
    std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
  }
}

}  // namespace jfrbpf::record
