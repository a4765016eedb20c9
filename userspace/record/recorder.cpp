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
  BpfSampler sampler(samplerConfig);

  SamplingClocks clocks(config.clockMode, static_cast<uint64_t>(config.periodNs), sampler);

  // Java frames need the JVM's tables in BPF before its first sample: connect before targeting it.
  std::vector<std::string> notes;
  std::vector<std::unique_ptr<JvmConnection>> jvms;
  for (pid_t pid : config.pids) connectJvm(pid, sampler, jvms, notes);

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
  SamplePipeline pipeline(out, sampler, clocks, config.periodNs);
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
  if (launched) {
    int status = 0;
    if (launched->reap(status)) summary.launchedExitStatus = status;
  }
  return summary;
}

}  // namespace jfrbpf::record
