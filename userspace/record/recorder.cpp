#include "userspace/record/recorder.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <optional>
#include <thread>

#include "userspace/base/error.h"
#include "userspace/record/bpf_sampler.h"
#include "userspace/record/cpu_clock_event.h"
#include "userspace/record/launcher.h"
#include "userspace/record/online_cpus.h"
#include "userspace/record/progress_line.h"
#include "userspace/record/sample_pipeline.h"
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
  for (pid_t pid : config.pids) requireProcess(pid);
  BlockedStopSignals signals;  // before any thread or child exists, so all inherit the mask

  SamplerConfig samplerConfig;
  samplerConfig.userStackDepth = config.stackDepth;
  samplerConfig.ringBufferBytes = config.ringBufferBytes;
  BpfSampler sampler(samplerConfig);

  std::vector<CpuClockEvent> clocks;
  std::vector<int> clockFds;
  for (int cpu : onlineCpus()) {
    clocks.emplace_back(cpu, static_cast<uint64_t>(config.periodNs));
    clockFds.push_back(clocks.back().fd());
  }
  sampler.attach(clockFds);

  std::unique_ptr<LaunchedProcess> launched;
  std::vector<pid_t> targets = config.pids;
  if (!config.command.empty()) {
    launched = std::make_unique<LaunchedProcess>(config.command);
    targets.push_back(launched->pid());
  }
  for (pid_t pid : targets) sampler.addTarget(static_cast<uint32_t>(pid));

  const int64_t startNs = jfr::Recording::now();
  StopConditions stop(signals, config.durationNs > 0 ? startNs + config.durationNs : 0);
  for (pid_t pid : targets) stop.watchProcess(pid);

  jfr::Recording out(recordingOptions(config));
  SamplePipeline pipeline(out, sampler, clocks, config.periodNs);
  std::atomic<bool> stopConsumer{false};
  std::thread consumer;
  RecordSummary summary;
  summary.outputPath = config.outputPath;
  try {
    for (CpuClockEvent& clock : clocks) clock.enable();
    consumer = std::thread([&] { pipeline.runUntil(stopConsumer); });
    if (launched) launched->release();

    ProgressLine progress(config.progressLine, describeTargets(config, launched ? launched->pid() : 0));
    std::optional<StopReason> reason;
    while (!(reason = stop.wait(1000))) {
      double elapsed = static_cast<double>(jfr::Recording::now() - startNs) / 1e9;
      progress.update(elapsed, static_cast<double>(config.durationNs) / 1e9, pipeline.samples(), pipeline.lost());
    }
    progress.clear();
    summary.stopReason = *reason;
  } catch (...) {
    for (CpuClockEvent& clock : clocks) clock.disable();
    stopConsumer.store(true, std::memory_order_release);
    if (consumer.joinable()) consumer.join();
    out.abandon();
    throw;
  }

  // Order matters for exact accounting: no overflow may happen after the final drain.
  for (CpuClockEvent& clock : clocks) clock.disable();
  sampler.detach();
  stopConsumer.store(true, std::memory_order_release);
  consumer.join();
  pipeline.finish();
  out.close();

  summary.seconds = static_cast<double>(jfr::Recording::now() - startNs) / 1e9;
  summary.samples = pipeline.samples();
  summary.failedStacks = pipeline.failedStacks();
  summary.lost = pipeline.ledger().total();
  for (const auto& [cause, count] : pipeline.ledger().byCause()) summary.lostByCause[cause] = count;
  summary.threads = pipeline.threads();
  if (launched) {
    int status = 0;
    if (launched->reap(status)) summary.launchedExitStatus = status;
  }
  return summary;
}

}  // namespace jfrbpf::record
