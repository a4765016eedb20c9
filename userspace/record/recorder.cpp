#include "userspace/record/recorder.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "userspace/base/error.h"
#include "userspace/discovery/discovery.h"
#include "userspace/proc/comm.h"
#include "userspace/record/bpf_sampler.h"
#include "userspace/record/dump_requests.h"
#include "userspace/record/rate_budget.h"
#include "userspace/record/jvm_connection.h"
#include "userspace/record/jvm_attachment.h"
#include "userspace/record/jvm_setup.h"
#include "userspace/record/slot_ranges.h"
#include "userspace/record/target_output.h"
#include "userspace/record/launcher.h"
#include "userspace/record/output_directory.h"
#include "userspace/record/privileges.h"
#include "userspace/record/progress_line.h"
#include "userspace/record/sample_pipeline.h"
#include "userspace/record/sampling_clocks.h"
#include "userspace/record/stop_conditions.h"

namespace jfrbpf::record {
namespace {

// How often the recorder looks at its stop conditions, progress line, retention and dump requests.
constexpr int kMainLoopMs = 250;
// How long the recording waits for the agents of its JVMs before it starts: a JVM that cannot take the
// agent by then (still starting, or not answering) is sampled with native frames until it can.
constexpr auto kStartAttachWait = std::chrono::seconds(10);

std::string describeTargets(const RecordConfig& config, pid_t launched) {
  if (launched > 0) return config.command.front() + " (pid " + std::to_string(launched) + ")";
  std::string text = config.pids.size() == 1 ? "pid " : "pids ";
  for (size_t i = 0; i < config.pids.size(); ++i) text += (i ? "," : "") + std::to_string(config.pids[i]);
  return text;
}

// With --rotate, the files of `pid` are named after it: what runs in it, and its container.
std::string filePrefixOf(const RecordConfig& config, pid_t pid) {
  if (std::optional<discovery::JvmInfo> jvm = discovery::inspectJvm(pid)) return jvmFilePrefix(*jvm);
  std::string what = config.command.empty() ? proc::readThreadComm(pid, pid) : config.command.front();
  return processFilePrefix(pid, what, "");
}

}  // namespace

jfr::RecordingOptions recordingOptions(const RecordConfig& config, const std::string& path) {
  jfr::RecordingOptions options;
  options.path = path;
  options.owner = config.outputOwner;
  options.settings = config.settings;
  options.maxChunkAge = config.flushNs;
  options.sampleEvents = config.sampleEvents;
  return options;
}

jvm::SessionLimits sessionLimitsOf(const RecordConfig& config) {
  jvm::SessionLimits limits;
  limits.maxModelBytes = javaModelShareOf(config.memoryLimitBytes);
  return limits;
}

SamplerConfig samplerConfigOf(const RecordConfig& config) {
  SamplerConfig sampler;
  sampler.samplingPeriodNs = static_cast<uint64_t>(config.periodNs);
  sampler.userStackDepth = config.stackDepth;
  sampler.perCpuClocks = config.clockMode == ClockMode::PerCpu;
  sampler.ringBufferBytes = config.ringBufferBytes;
  sampler.measureSampleCost = config.measureSampleCost;
  sampler.methodTraces = !config.methodTiming.traceFilter.empty();
  sampler.offCpu = config.offCpu;
  sampler.offCpuIntervalNs = static_cast<uint64_t>(config.offCpuIntervalNs);
  return sampler;
}

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
  const rlimit openFiles = raiseOpenFileLimit();
  // Before anything is done by pid: a target that exits meanwhile is never confused with a process that
  // gets its pid after it.
  std::vector<UniqueFd> pinned;
  for (pid_t pid : config.pids) pinned.push_back(pinProcess(pid));
  BlockedStopSignals signals;  // before any thread or child exists, so all inherit the mask

  const bool timing = config.methodTiming.enabled();
  BpfSampler sampler(samplerConfigOf(config));
  SamplingClocks clocks(config.clockMode, static_cast<uint64_t>(config.periodNs), sampler);

  // Java frames need the JVM's tables in BPF before its first sample: wait for the agents before targeting
  // the JVMs, for a while. A JVM still starting then is recorded with native frames until it takes the agent.
  AttachPermits permits(kConcurrentAttaches);
  std::vector<std::unique_ptr<JvmAttachment>> attaching;
  for (pid_t pid : config.pids) {
    attaching.push_back(std::make_unique<JvmAttachment>(pid, permits, sessionLimitsOf(config)));
  }
  const auto attachDeadline = std::chrono::steady_clock::now() + kStartAttachWait;
  for (auto& attachment : attaching) {
    attachment->waitUntilDone(std::chrono::duration_cast<std::chrono::milliseconds>(
        std::max(attachDeadline - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero())));
  }
  std::vector<std::string> notes;
  std::vector<std::unique_ptr<JvmConnection>> jvms;
  std::vector<pid_t> refusedJvms;
  std::erase_if(attaching, [&](std::unique_ptr<JvmAttachment>& attachment) {
    if (!attachment->done()) return false;
    for (std::string& note : attachment->takeNotes()) std::fprintf(stderr, "jfrbpf: %s\n", note.c_str());
    if (auto jvm = attachment->takeConnection()) {
      publishJvm(*jvm, sampler, notes);
      jvms.push_back(std::move(jvm));
    } else if (!attachment->jvmExited()) {
      std::fprintf(stderr, "jfrbpf: %s\n", attachment->failureNote().c_str());
      notes.push_back(attachment->failureNote());
      if (attachment->isJvm()) refusedJvms.push_back(attachment->pid());
    }
    return true;
  });
  const bool launchesJava = !config.command.empty() && isJavaLauncher(config.command.front());
  // Statistics slots, a range per target that may be a JVM.
  SlotRanges slots(kMethodSlots,
                   kMethodSlots / static_cast<uint32_t>(std::max<size_t>(1, config.pids.size() + (launchesJava ? 1 : 0))));
  auto timeMethods = [&](JvmConnection& jvm, std::vector<std::string>& jvmNotes) {
    if (!timing) return;
    std::optional<uint32_t> base = slots.acquire();
    if (base) startTiming(jvm, sampler, config.methodTiming, *base, *base + slots.rangeSize(), jvmNotes);
  };
  if (timing) {
    if (jvms.empty() && attaching.empty() && !launchesJava) {
      throw Error("method timing needs a HotSpot JVM, and no target is one (see the notes above)", ErrorKind::Target);
    }
    for (auto& jvm : jvms) {
      if (signals.stopPending()) {  // asked to stop while attaching: the JVMs' code is left alone
        notes.push_back("stopped before method timing began: no method was instrumented");
        std::fprintf(stderr, "jfrbpf: %s\n", notes.back().c_str());
        break;
      }
      timeMethods(*jvm, notes);
    }
  }

  std::unique_ptr<LaunchedProcess> launched;
  std::unique_ptr<JvmConnection> launchedJvm;
  std::vector<pid_t> targets = config.pids;
  if (!config.command.empty()) {
    std::vector<std::string> command = config.command;
    if (launchesJava) {
      launchedJvm = JvmConnection::forLaunch(sessionLimitsOf(config));
      command.insert(command.begin() + 1, launchedJvm->launchOption());
    }
    launched = std::make_unique<LaunchedProcess>(command, openFiles);
    targets.push_back(launched->pid());
  }
  const int64_t startNs = jfr::Recording::now();
  StopConditions stop(signals, config.durationNs > 0 ? startNs + config.durationNs : 0);
  for (size_t i = 0; i < config.pids.size(); ++i) stop.watchProcess(config.pids[i], std::move(pinned[i]));
  if (launched) stop.watchProcess(launched->pid());
  for (pid_t pid : targets) clocks.addProcess(pid);  // the launched child is still one gated thread

  SamplePipeline pipeline(sampler, clocks, config.memoryLimitBytes);
  std::optional<FileSeries> series;
  if (config.rotation.enabled()) {
    series.emplace(config.outputPath, filePrefixOf(config, targets.front()), config.rotation);
  }
  OutputDirectoryWatch outputDirectory(config.rotation.enabled()
                                           ? config.outputPath
                                           : std::filesystem::absolute(config.outputPath).parent_path().string());
  TargetOutput output(std::make_unique<jfr::Recording>(
                          recordingOptions(config, series ? series->nextPath(time(nullptr)) : config.outputPath)),
                      sampler, pipeline.kernelSymbols(), pipeline.nativeSymbols(), config.periodNs, config.methodTiming);
  if (series) output.rotateThrough(std::move(*series));
  RetentionSweeper retention(config.outputPath, config.retention);
  RateBudget budget(config.maxRatePerSecond, config.periodNs, sampler, clocks, pipeline);
  for (auto& jvm : jvms) output.addJvm(*jvm);
  for (auto& attachment : attaching) output.setJavaFramesMissing(attachment->pid(), StackEnd::kJavaFramesPending);
  for (pid_t pid : refusedJvms) output.setJavaFramesMissing(pid, StackEnd::kJavaFramesUnavailable);
  std::vector<std::pair<pid_t, ThreadCpuTimes>> cpuStarts;
  for (pid_t pid : targets) {
    cpuStarts.emplace_back(pid, readThreadCpuTimes(pid));
    output.setThreadCpuStart(pid, cpuStarts.back().second);
  }
  for (pid_t pid : config.pids) pipeline.addProcess(pid, output);
  RecordSummary summary;
  summary.outputPath = config.outputPath;
  try {
    for (const auto& [pid, start] : cpuStarts) sampler.addTarget(static_cast<uint32_t>(pid), start);
    stop.requireAlive();
    clocks.enable();
    if (launched) {
      launched->release();
      pipeline.addProcess(launched->pid(), output);  // its own code now; libraries it loads later follow
    }
    for (const std::string& note : notes) output.recording().note(jfr::Recording::now(), "warning", note);
    // Before the launched JVM is connected: its native unwind tables must follow its start-up.
    pipeline.start();
    if (launchedJvm) {
      try {
        // The JVM waits in its VMInit until it is resumed: its threads' first samples have Java frames.
        launchedJvm->acceptLaunched(launched->pid(), kAgentTimeout);
        std::vector<std::string> jvmNotes;
        publishJvm(*launchedJvm, sampler, jvmNotes);
        if (timing) {
          // The agent reports the JVM as it starts; its hook sites come with its first records.
          launchedJvm->session().drainUntil(
              [](const jvm::JavaModel& m) { return m.timedMethods().hookSites().has_value(); }, kAgentTimeout);
          timeMethods(*launchedJvm, jvmNotes);
        }
        launchedJvm->resumeLaunched(kAgentTimeout);
        pipeline.runOnConsumer([&output, jvm = launchedJvm.get(), jvmNotes] {
          output.addJvm(*jvm);
          for (const std::string& note : jvmNotes) output.recording().note(jfr::Recording::now(), "warning", note);
        });
      } catch (const Error& e) {
        std::string note = "the launched JVM's agent did not connect (" + std::string(e.what()) +
                           "): recording native frames only";
        std::fprintf(stderr, "jfrbpf: %s\n", note.c_str());
        pipeline.runOnConsumer([&output, note] { output.recording().note(jfr::Recording::now(), "warning", note); });
        launchedJvm.reset();
      }
    }

    ProgressLine progress(config.progressLine, describeTargets(config, launched ? launched->pid() : 0));
    // A target that exited is let go at once: nothing of a process that gets its pid is taken for it.
    auto retireExited = [&](bool othersGoOn) {
      for (pid_t pid : stop.takeExited()) {
        clocks.removeProcess(pid);
        std::function<void()> noteInFile;
        if (othersGoOn) {
          std::string note = "process " + std::to_string(pid) + " exited; recording the other targets";
          progress.clear();
          std::fprintf(stderr, "jfrbpf: %s\n", note.c_str());
          noteInFile = [&output, note] { output.recording().note(jfr::Recording::now(), "info", note); };
        }
        pipeline.retireProcess(pid, std::move(noteInFile));
      }
    };
    // The JVMs that could not take the agent at the start take it as soon as they can.
    auto joinAttached = [&] {
      std::erase_if(attaching, [&](std::unique_ptr<JvmAttachment>& attachment) {
        for (std::string& note : attachment->takeNotes()) {
          progress.clear();
          std::fprintf(stderr, "jfrbpf: %s\n", note.c_str());
          pipeline.runOnConsumer([&output, note] { output.recording().note(jfr::Recording::now(), "info", note); });
        }
        if (!attachment->done()) return false;
        progress.clear();
        if (auto jvm = attachment->takeConnection()) {
          std::vector<std::string> jvmNotes;
          publishJvm(*jvm, sampler, jvmNotes);
          timeMethods(*jvm, jvmNotes);
          addLateJvm(*jvm, *attachment, output, pipeline, std::move(jvmNotes));
          jvms.push_back(std::move(jvm));
        } else if (!attachment->jvmExited()) {
          refuseLateJvm(*attachment, output, pipeline);
        }
        return true;
      });
    };
    std::unique_ptr<DumpServer> dumps = openDumpServer();
    std::optional<StopReason> reason;
    while (!(reason = stop.wait(kMainLoopMs))) {
      retireExited(/*othersGoOn=*/true);
      joinAttached();
      outputDirectory.check();
      double elapsed = static_cast<double>(jfr::Recording::now() - startNs) / 1e9;
      progress.update(elapsed, static_cast<double>(config.durationNs) / 1e9, pipeline.samples(), pipeline.lost());
      retention.sweepIfDue(jfr::Recording::now());
      answerDumpRequests(dumps.get(), pipeline, {&output});
      budget.update(jfr::Recording::now(), {&output});
    }
    retireExited(/*othersGoOn=*/false);
    progress.clear();
    for (auto& attachment : attaching) {
      if (!attachment->done()) {
        std::fprintf(stderr, "jfrbpf: JVM %d: the recording ended before its agent attached: native frames only\n",
                     attachment->pid());
      }
    }
    attaching.clear();
    summary.stopReason = *reason;
  } catch (...) {
    pipeline.abandon();
    output.abandon();
    throw;
  }

  pipeline.stopAndDrain();
  output.finish(jfr::Recording::now(), /*finalTraces=*/true);
  retention.sweepIfDue(INT64_MAX);
  if (series) summary.outputPath = output.path();
  summary.fileCount = output.files();
  summary.periodNs = budget.periodNs();

  summary.seconds = static_cast<double>(jfr::Recording::now() - startNs) / 1e9;
  output.addCountsTo(summary);
  pipeline.addUnfiledLossesTo(summary);
  pipeline.addMemoryTo(summary);
  SamplerCounters counters = sampler.readCounters();
  summary.overflows = samplingTicks(counters);
  summary.counters = counters;
  summary.sampleCosts = sampler.readSampleCosts();
  summary.javaProcesses = jvms.size() + (launchedJvm ? 1 : 0);
  if (timing) {
    for (auto& jvm : jvms) summary.timedJvms += jvm->timingStarted() ? 1 : 0;
    if (launchedJvm && launchedJvm->timingStarted()) ++summary.timedJvms;
    summary.timedMethods = output.timedMethodsWritten();
    summary.timedInvocations = output.timedInvocationsWritten();
    summary.tracesWritten = output.traceCounters().written;
    summary.tracesUnknown = output.traceCounters().unknownMethod;
    summary.traceCounters = sampler.readTimerCounters();
    auto addStubCounters = [&summary](const JvmConnection& jvm) {
      if (const timing::TimingTableView* table = jvm.timingTable()) summary.stubCounters += table->counters();
    };
    for (auto& jvm : jvms) addStubCounters(*jvm);
    if (launchedJvm) addStubCounters(*launchedJvm);
  }
  if (launched) {
    int status = 0;
    if (launched->reap(status)) summary.launchedExitStatus = status;
  }
  return summary;
}

}  // namespace jfrbpf::record
