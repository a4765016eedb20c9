#include "userspace/record/recorder.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "userspace/attach/attach_error.h"
#include "userspace/base/error.h"
#include "userspace/record/bpf_sampler.h"
#include "userspace/record/jvm_connection.h"
#include "userspace/record/launcher.h"
#include "userspace/record/privileges.h"
#include "userspace/record/progress_line.h"
#include "userspace/record/sample_pipeline.h"
#include "userspace/record/sampling_clocks.h"
#include "userspace/record/stop_conditions.h"

namespace jfrbpf::record {
namespace {

void requireProcess(pid_t pid) {
  if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH)) {
    throw Error("no process with pid " + std::to_string(pid) + " (check it with ps; `jfrbpf list` shows JVMs)",
                ErrorKind::Target);
  }
}

std::string describeTargets(const RecordConfig& config, pid_t launched) {
  if (launched > 0) return config.command.front() + " (pid " + std::to_string(launched) + ")";
  std::string text = config.pids.size() == 1 ? "pid " : "pids ";
  for (size_t i = 0; i < config.pids.size(); ++i) text += (i ? "," : "") + std::to_string(config.pids[i]);
  return text;
}

constexpr std::chrono::seconds kAgentTimeout{30};
// Instrumenting can retransform thousands of classes when a filter names a method of every class.
constexpr std::chrono::seconds kTimingTimeout{120};
// Statistics rows over all JVMs of a recording; each JVM gets an equal share.
constexpr uint32_t kMethodSlots = 1u << 16;

bool isJavaLauncher(const std::string& program) {
  return std::filesystem::path(program).filename() == "java";
}

// Attaches jfrbpf's agent to `pid` if it is a HotSpot JVM. Failing that, the recording goes on with native
// frames, and says so once, on the terminal and in the file.
void connectJvm(pid_t pid, BpfSampler& sampler, std::vector<std::unique_ptr<JvmConnection>>& jvms,
                std::vector<std::string>& notes) {
  std::string note;
  try {
    std::unique_ptr<JvmConnection> jvm = JvmConnection::attach(pid, kAgentTimeout);
    if (!jvm->note().empty()) std::fprintf(stderr, "jfrbpf: %s\n", jvm->note().c_str());
    std::string whyNot;
    if (!jvm->publish(sampler, whyNot)) {
      note = "JVM " + std::to_string(pid) + ": Java frames may be incomplete: " + whyNot;
    }
    jvms.push_back(std::move(jvm));
  } catch (const attach::AttachError& e) {
    note = e.kind() == attach::AttachFailure::NotHotSpot
               ? "process " + std::to_string(pid) + " is not a HotSpot JVM: recording native and kernel frames"
               : "process " + std::to_string(pid) + ": Java frames unavailable (" + e.what() +
                     "): recording native and kernel frames only";
  } catch (const Error& e) {
    note = "process " + std::to_string(pid) + ": Java frames unavailable (" + e.what() +
           "): recording native and kernel frames only";
  }
  if (!note.empty()) {
    std::fprintf(stderr, "jfrbpf: %s\n", note.c_str());
    notes.push_back(note);
  }
}

std::string describeInstrumentation(const JvmConnection& connection) {
  size_t timed = 0, traced = 0;
  connection.model().timedMethods().forEach([&](const jvm::TimedMethodInfo& m) {
    timed += m.timed() ? 1 : 0;
    traced += m.traced() ? 1 : 0;
  });
  const jvm::TimingStatusInfo& status = *connection.model().timedMethods().status();
  std::string text = "JVM " + std::to_string(connection.pid()) + ": instrumented " + std::to_string(status.classesInstrumented) +
                     (status.classesInstrumented == 1 ? " class" : " classes") + " (" + std::to_string(timed) +
                     " timed, " + std::to_string(traced) + " traced methods)";
  if (status.methodsSkipped + status.classesFailed > 0) {
    text += ", " + std::to_string(status.methodsSkipped) + " methods and " + std::to_string(status.classesFailed) +
            " classes left alone";
  }
  return text;
}

// Instruments the methods of `jvm` the filters select. A JVM that cannot be instrumented keeps being
// sampled; the reason goes to the terminal and the recording.
void startTiming(JvmConnection& connection, BpfSampler& sampler, const timing::MethodTimingOptions& options, uint32_t slotBase,
                 uint32_t slotLimit, std::vector<std::string>& notes) {
  try {
    connection.startTiming(sampler, options, slotBase, slotLimit, kTimingTimeout);
    std::fprintf(stderr, "jfrbpf: %s\n", describeInstrumentation(connection).c_str());
    const std::vector<jvm::TimingSkip>& skips = connection.model().timedMethods().skips();
    for (size_t i = 0; i < skips.size(); ++i) {
      const jvm::TimingSkip& skip = skips[i];
      std::string what = skip.className + (skip.methodName.empty() ? "" : "::" + skip.methodName + skip.descriptor);
      notes.push_back("JVM " + std::to_string(connection.pid()) + ": not instrumented: " + what + ": " + skip.reason);
      if (i < 5) std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
    }
  } catch (const Error& e) {
    notes.push_back(std::string(e.what()) + ": recording without method timing there");
    std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
  }
}

jfr::RecordingOptions recordingOptions(const RecordConfig& config) {
  jfr::RecordingOptions options;
  options.path = config.outputPath;
  options.settings = config.settings;
  return options;
}

}  // namespace

const char* describe(StopReason reason) {
  switch (reason) {
    case StopReason::Duration: return "duration reached";
    case StopReason::Interrupted: return "interrupted";
    case StopReason::Terminated: return "terminated";
    case StopReason::TargetsExited: return "target exited";
  }
  return "stopped";
}

RecordSummary record(const RecordConfig& config) {
  requireProfilingPrivileges();
  for (pid_t pid : config.pids) requireProcess(pid);
  BlockedStopSignals signals;  // before any thread or child exists, so all inherit the mask

  SamplerConfig samplerConfig;
  samplerConfig.userStackDepth = config.stackDepth;
  samplerConfig.ringBufferBytes = config.ringBufferBytes;
  const bool timing = config.methodTiming.enabled();
  if (timing) {
    samplerConfig.methodSlots = kMethodSlots;
    samplerConfig.traceThresholdNs = static_cast<uint64_t>(std::max<int64_t>(0, config.methodTiming.traceThresholdNs));
  }
  BpfSampler sampler(samplerConfig);

  SamplingClocks clocks(config.clockMode, static_cast<uint64_t>(config.periodNs), sampler);

  // Java frames need the JVM's tables in BPF before its first sample: connect before targeting it.
  std::vector<std::string> notes;
  std::vector<std::unique_ptr<JvmConnection>> jvms;
  for (pid_t pid : config.pids) connectJvm(pid, sampler, jvms, notes);
  const bool launchesJava = !config.command.empty() && isJavaLauncher(config.command.front());
  const uint32_t slotsPerJvm = kMethodSlots / static_cast<uint32_t>(std::max<size_t>(1, jvms.size() + (launchesJava ? 1 : 0)));
  uint32_t nextSlot = 0;
  if (timing) {
    if (jvms.empty() && !launchesJava) {
      throw Error("method timing needs a HotSpot JVM, and no target is one (see the notes above)", ErrorKind::Target);
    }
    for (auto& jvm : jvms) {
      startTiming(*jvm, sampler, config.methodTiming, nextSlot, nextSlot + slotsPerJvm, notes);
      nextSlot += slotsPerJvm;
    }
  }

  std::unique_ptr<LaunchedProcess> launched;
  std::unique_ptr<JvmConnection> launchedJvm;
  std::vector<pid_t> targets = config.pids;
  if (!config.command.empty()) {
    std::vector<std::string> command = config.command;
    if (isJavaLauncher(command.front())) {
      launchedJvm = JvmConnection::forLaunch();
      command.insert(command.begin() + 1, launchedJvm->launchOption());
    }
    launched = std::make_unique<LaunchedProcess>(command);
    targets.push_back(launched->pid());
  }
  const int64_t startNs = jfr::Recording::now();
  StopConditions stop(signals, config.durationNs > 0 ? startNs + config.durationNs : 0);
  for (pid_t pid : targets) stop.watchProcess(pid);
  for (pid_t pid : targets) clocks.addProcess(pid);  // the launched child is still one gated thread

  jfr::Recording out(recordingOptions(config));
  SamplePipeline pipeline(out, sampler, clocks, config.periodNs, config.methodTiming);
  for (auto& jvm : jvms) pipeline.addJvm(*jvm);
  for (pid_t pid : config.pids) pipeline.addProcess(pid);
  std::atomic<bool> stopConsumer{false};
  std::thread consumer;
  RecordSummary summary;
  summary.outputPath = config.outputPath;
  try {
    for (pid_t pid : targets) sampler.addTarget(static_cast<uint32_t>(pid));
    clocks.enable();
    if (launched) {
      launched->release();
      pipeline.addProcess(launched->pid());  // its own code now; libraries it loads later follow
    }
    if (launchedJvm) {
      try {
        launchedJvm->acceptLaunched(launched->pid(), kAgentTimeout);
        if (timing) {
          // The agent reports the JVM as it starts; its hook sites come with its first records.
          launchedJvm->session().drainUntil(
              [](const jvm::JavaModel& m) { return m.timedMethods().hookSites().has_value(); }, kAgentTimeout);
          startTiming(*launchedJvm, sampler, config.methodTiming, nextSlot, nextSlot + slotsPerJvm, notes);
        }
        pipeline.addJvm(*launchedJvm);
      } catch (const Error& e) {
        notes.push_back("the launched JVM's agent did not connect (" + std::string(e.what()) +
                        "): recording native frames only");
        std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
        launchedJvm.reset();
      }
    }
    for (const std::string& note : notes) out.note(jfr::Recording::now(), "warning", note);
    consumer = std::thread([&] { pipeline.runUntil(stopConsumer); });

    ProgressLine progress(config.progressLine, describeTargets(config, launched ? launched->pid() : 0));
    std::optional<StopReason> reason;
    while (!(reason = stop.wait(1000))) {
      double elapsed = static_cast<double>(jfr::Recording::now() - startNs) / 1e9;
      progress.update(elapsed, static_cast<double>(config.durationNs) / 1e9, pipeline.samples(), pipeline.lost());
    }
    progress.clear();
    summary.stopReason = *reason;
  } catch (...) {
    clocks.disable();
    stopConsumer.store(true, std::memory_order_release);
    if (consumer.joinable()) consumer.join();
    out.abandon();
    throw;
  }

  // Order matters for exact accounting: no overflow may happen after the final drain.
  clocks.disable();
  sampler.detach();
  stopConsumer.store(true, std::memory_order_release);
  consumer.join();
  pipeline.finish();
  out.close();

  summary.seconds = static_cast<double>(jfr::Recording::now() - startNs) / 1e9;
  summary.samples = pipeline.samples();
  summary.failedStacks = pipeline.failedStacks();
  summary.lost = pipeline.ledger().total();
  SamplerCounters counters = sampler.readCounters();
  summary.overflows = counters[JFRBPF_COUNTER_OVERFLOWS] - counters[JFRBPF_COUNTER_NOT_TARGET];
  summary.counters = counters;
  for (const auto& [cause, count] : pipeline.ledger().byCause()) summary.lostByCause[cause] = count;
  summary.threads = pipeline.threads();
  summary.javaProcesses = jvms.size() + (launchedJvm ? 1 : 0);
  if (timing) {
    for (auto& jvm : jvms) summary.timedJvms += jvm->timingStarted() ? 1 : 0;
    if (launchedJvm && launchedJvm->timingStarted()) ++summary.timedJvms;
    summary.timedMethods = pipeline.timedMethodsWritten();
    summary.timedInvocations = pipeline.timedInvocationsWritten();
    summary.tracesWritten = pipeline.traceCounters().written;
    summary.tracesUnknown = pipeline.traceCounters().unknownMethod;
    summary.timerCounters = sampler.readTimerCounters();
  }
  if (launched) {
    int status = 0;
    if (launched->reap(status)) summary.launchedExitStatus = status;
  }
  return summary;
}

}  // namespace jfrbpf::record
