// `jfrbpf record --all`: one BPF sampler for every HotSpot JVM on the host, a file per JVM. JVMs that
// start during the recording are picked up by a watcher; a JVM that exits gets its file finished then.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "userspace/base/error.h"
#include "userspace/discovery/discovery.h"
#include "userspace/discovery/jvm_watcher.h"
#include "userspace/record/dump_requests.h"
#include "userspace/record/rate_budget.h"
#include "userspace/record/jvm_setup.h"
#include "userspace/record/output_directory.h"
#include "userspace/record/privileges.h"
#include "userspace/record/progress_line.h"
#include "userspace/record/recorder.h"
#include "userspace/record/sample_pipeline.h"
#include "userspace/record/slot_ranges.h"
#include "userspace/record/stop_conditions.h"
#include "userspace/record/target_output.h"

namespace jfrbpf::record {
namespace {

constexpr int kWatchIntervalMs = 250;
// Method-timing statistics slots per JVM: the recording can time methods in this many JVMs at once.
constexpr uint32_t kSlotsPerJvm = 1024;
constexpr size_t kConcurrentAttaches = 16;
// How long the duration waits for the agents of the JVMs found at the start; slower ones go on attaching.
constexpr int64_t kInitialAttachWaitNs = 5'000'000'000;
constexpr int kAttachPollMs = 20;

struct HostJvm {
  pid_t pid = 0;
  std::string prefix;  // of its file name
  std::string path;    // its file; with --rotate, its first
  std::string mainClass;
  std::unique_ptr<JvmConnection> jvm;  // null when the agent could not be attached
  std::unique_ptr<TargetOutput> output;
  std::optional<uint32_t> slotBase;
  std::atomic<bool> finished{false};
};

// A JVM whose agent is being attached on a thread of its own, so that a JVM slow to answer (or silent until
// the attach times out) holds up neither the other JVMs nor the watcher: exits, new JVMs, stop signals.
struct PendingAttach {
  std::unique_ptr<HostJvm> host;
  std::vector<std::string> notes;
  bool gone = false;  // the JVM exited before its attach ended: nothing to record
  std::atomic<bool> done{false};
  std::jthread thread;  // last member: joined before the others are destroyed
};

class HostRecorder {
 public:
  HostRecorder(const RecordConfig& config, BpfSampler& sampler, SamplingClocks& clocks, SamplePipeline& pipeline,
               const RateBudget& budget, RecordSummary& summary)
      : config_(config),
        sampler_(sampler),
        clocks_(clocks),
        pipeline_(pipeline),
        budget_(budget),
        summary_(summary),
        slots_(kMethodSlots, kSlotsPerJvm) {
  }

  // Starts attaching to each of `pids` that is a JVM we should record into its own file; its recording
  // begins once the attach ended (beginAttached). At most kConcurrentAttaches run at once: an attach mostly
  // waits for the JVM, and a host may run dozens of them.
  void start(const std::vector<pid_t>& pids) {
    for (pid_t pid : pids) {
      if (jvms_.count(pid) || findPending(pid)) continue;
      std::optional<discovery::JvmInfo> info = discovery::inspectJvm(pid);
      if (!info) continue;
      if (!config_.containerFilter.empty() && !info->container.id.starts_with(config_.containerFilter)) continue;
      auto pending = std::make_unique<PendingAttach>();
      pending->host = std::make_unique<HostJvm>();
      pending->host->pid = pid;
      pending->host->mainClass = info->mainClass;
      pending->host->prefix = jvmFilePrefix(*info);
      if (!config_.rotation.enabled()) {
        pending->host->path = unusedPath(std::filesystem::path(config_.outputPath) / (pending->host->prefix + ".jfr"));
      }
      queued_.push_back(std::move(pending));
    }
    launchQueued();
  }

  // Begins recording every JVM whose attach ended (with Java frames or, when it failed, without). Returns
  // whether attaches are still under way.
  bool beginAttached() {
    for (auto it = attaching_.begin(); it != attaching_.end();) {
      PendingAttach& pending = **it;
      if (!pending.done.load(std::memory_order_acquire)) {
        ++it;
        continue;
      }
      pending.thread.join();
      if (!pending.gone) begin(std::move(pending.host), pending.notes);
      it = attaching_.erase(it);
    }
    launchQueued();
    return !attaching_.empty() || !queued_.empty();
  }

  // At the end: JVMs still attaching are not recorded. Their attach threads cannot be interrupted, so this
  // waits for them, saying so (an attach gives up after kAgentTimeout).
  void dropPendingAttaches() {
    for (auto& pending : queued_) {
      std::fprintf(stderr, "jfrbpf: JVM %d not recorded: the recording ended before its turn to attach\n",
                   pending->host->pid);
    }
    queued_.clear();
    for (auto& pending : attaching_) {
      if (pending->gone) continue;
      if (pending->done.load(std::memory_order_acquire)) {
        std::fprintf(stderr, "jfrbpf: JVM %d not recorded: its agent attached as the recording ended\n",
                     pending->host->pid);
      } else {
        std::fprintf(stderr,
                     "jfrbpf: JVM %d not recorded: it has not answered the attach; waiting for the attach to end "
                     "(at most %lld s)\n",
                     pending->host->pid, static_cast<long long>(kAgentTimeout.count()));
      }
    }
    attaching_.clear();
  }

  // The JVM exited: its file is finished on the consumer thread once the rings hold nothing more of it.
  void retire(pid_t pid) {
    if (PendingAttach* pending = findPending(pid)) {
      pending->gone = true;
      std::erase_if(queued_, [&](const auto& queued) { return queued.get() == pending; });
      return;
    }
    auto it = jvms_.find(pid);
    if (it == jvms_.end()) return;
    HostJvm* host = it->second.get();
    exited_.push_back(std::move(it->second));  // the pid may come back as another JVM
    jvms_.erase(it);
    sampler_.removeTarget(static_cast<uint32_t>(pid));
    clocks_.removeProcess(pid);
    pipeline_.retireProcess(pid, [host] {
      host->output->finish(jfr::Recording::now(), /*finalTraces=*/true);
      host->finished.store(true, std::memory_order_release);
    });
    std::fprintf(stderr, "jfrbpf: JVM %d exited: finishing %s\n", pid, host->path.c_str());
  }

  // JVMs whose files are finished leave nothing behind but their lines in the summary: a host recording
  // runs for days while JVMs come and go.
  void releaseFinished() {
    std::erase_if(exited_, [this](const std::unique_ptr<HostJvm>& host) {
      if (!host->finished.load(std::memory_order_acquire)) return false;
      account(*host);
      if (host->slotBase) slots_.release(*host->slotBase);  // its last timings are in its file
      return true;
    });
  }

  // The outputs of the JVMs being recorded now.
  std::vector<TargetOutput*> recordingOutputs() const {
    std::vector<TargetOutput*> outputs;
    for (const auto& [pid, host] : jvms_) outputs.push_back(host->output.get());
    return outputs;
  }

  // After the pipeline finished: every file not finished yet is finished now.
  void finishAll() {
    for (HostJvm* host : all()) {
      if (!host->finished) host->output->finish(jfr::Recording::now(), /*finalTraces=*/true);
      account(*host);
    }
    std::sort(summary_.files.begin(), summary_.files.end(),
              [](const RecordSummary::File& a, const RecordSummary::File& b) { return a.pid < b.pid; });
  }

  void abandonAll() {
    for (HostJvm* host : all()) {
      if (!host->finished) host->output->abandon();
    }
  }

 private:
  void account(const HostJvm& host) {
    const TargetOutput& output = *host.output;
    summary_.files.push_back({host.pid, output.path(), output.files(), host.mainClass, output.samples(),
                              output.lost(), host.jvm != nullptr});
    output.addCountsTo(summary_);
    summary_.fileCount += output.files();
    summary_.javaProcesses += host.jvm ? 1 : 0;
  }

  std::vector<HostJvm*> all() const {
    std::vector<HostJvm*> hosts;
    for (const auto& [pid, host] : jvms_) hosts.push_back(host.get());
    for (const auto& host : exited_) hosts.push_back(host.get());
    std::stable_sort(hosts.begin(), hosts.end(), [](const HostJvm* a, const HostJvm* b) { return a->pid < b->pid; });
    return hosts;
  }

  PendingAttach* findPending(pid_t pid) const {
    for (const auto* list : {&queued_, &attaching_}) {
      for (const auto& pending : *list) {
        if (pending->host->pid == pid && !pending->gone) return pending.get();
      }
    }
    return nullptr;
  }

  void launchQueued() {
    while (attaching_.size() < kConcurrentAttaches && !queued_.empty()) {
      PendingAttach& pending = *attaching_.emplace_back(std::move(queued_.front()));
      queued_.erase(queued_.begin());
      pending.thread = std::jthread([&pending] {
        pending.host->jvm = attachJvm(pending.host->pid, pending.notes);
        pending.done.store(true, std::memory_order_release);
      });
    }
  }

  // `wanted`, or with "-2", "-3"... before ".jfr" when a file or another JVM of this recording has it.
  std::string unusedPath(const std::filesystem::path& wanted) {
    auto taken = [&](const std::string& path) {
      std::vector<HostJvm*> hosts = all();
      for (const auto* list : {&queued_, &attaching_}) {
        for (const auto& pending : *list) hosts.push_back(pending->host.get());
      }
      return std::filesystem::exists(path) ||
             std::any_of(hosts.begin(), hosts.end(), [&](const HostJvm* host) { return host->path == path; });
    };
    std::string path = wanted.string();
    for (int n = 2; taken(path); ++n) {
      path = (wanted.parent_path() / (wanted.stem().string() + "-" + std::to_string(n) + ".jfr")).string();
    }
    return path;
  }

  void begin(std::unique_ptr<HostJvm> host, std::vector<std::string>& notes) {
    const pid_t pid = host->pid;
    if (host->jvm) publishJvm(*host->jvm, sampler_, notes);
    if (host->jvm && config_.methodTiming.enabled()) {
      host->slotBase = slots_.acquire();
      if (host->slotBase) {
        startTiming(*host->jvm, sampler_, config_.methodTiming, *host->slotBase, *host->slotBase + kSlotsPerJvm, notes);
      } else {
        notes.push_back("method timing not started: " + std::to_string(kMethodSlots / kSlotsPerJvm) +
                        " JVMs are timed already (a JVM's slots serve the next one once its file is finished)");
      }
    }
    std::optional<FileSeries> series;
    if (config_.rotation.enabled()) {
      series.emplace(config_.outputPath, host->prefix, config_.rotation);
      host->path = series->nextPath(time(nullptr));
    }
    host->output = std::make_unique<TargetOutput>(std::make_unique<jfr::Recording>(recordingOptions(config_, host->path)),
                                                  sampler_, pipeline_.kernelSymbols(), pipeline_.nativeSymbols(),
                                                  config_.periodNs, config_.methodTiming);
    if (series) host->output->rotateThrough(std::move(*series));
    budget_.applyTo(*host->output, jfr::Recording::now());
    if (host->jvm) host->output->addJvm(*host->jvm);
    for (const std::string& note : notes) host->output->recording().note(jfr::Recording::now(), "warning", note);
    try {
      clocks_.addProcess(pid);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Target) throw;  // it exited while we connected: the watcher tells soon
    }
    ThreadCpuTimes cpuStart = readThreadCpuTimes(pid);
    host->output->setThreadCpuStart(pid, cpuStart);
    pipeline_.addProcess(pid, *host->output);
    sampler_.addTarget(static_cast<uint32_t>(pid), cpuStart);
    std::fprintf(stderr, "jfrbpf: recording JVM %d (%s) into %s\n", pid, host->mainClass.c_str(), host->path.c_str());
    jvms_.emplace(pid, std::move(host));
  }

  const RecordConfig& config_;
  BpfSampler& sampler_;
  SamplingClocks& clocks_;
  SamplePipeline& pipeline_;
  const RateBudget& budget_;
  RecordSummary& summary_;  // of the JVMs finished so far
  std::map<pid_t, std::unique_ptr<HostJvm>> jvms_;  // recording now
  std::vector<std::unique_ptr<HostJvm>> exited_;    // finished, or being finished on the consumer thread
  std::vector<std::unique_ptr<PendingAttach>> queued_;     // to attach, in the order found
  std::vector<std::unique_ptr<PendingAttach>> attaching_;  // attaching now
  SlotRanges slots_;
};

// Begins the JVMs found at the start as their attaches end, for at most kInitialAttachWaitNs. Returns why
// to stop if a signal came meanwhile.
std::optional<StopReason> waitForInitialAttaches(HostRecorder& host, const BlockedStopSignals& signals) {
  StopConditions waited(signals, jfr::Recording::now() + kInitialAttachWaitNs);
  while (host.beginAttached()) {
    std::optional<StopReason> reason = waited.wait(kAttachPollMs);
    if (reason == StopReason::Duration) break;
    if (reason) return reason;
  }
  return std::nullopt;
}

}  // namespace

RecordSummary recordAll(const RecordConfig& config) {
  requireProfilingPrivileges();
  raiseOpenFileLimit();
  prepareOutputDirectory(config.outputPath, "--all");
  BlockedStopSignals signals;

  BpfSampler sampler(samplerConfigOf(config));
  SamplingClocks clocks(config.clockMode, static_cast<uint64_t>(config.periodNs), sampler);
  SamplePipeline pipeline(sampler, clocks);
  RecordSummary summary;
  summary.outputPath = config.outputPath;
  RateBudget budget(config.maxRatePerSecond, config.periodNs, sampler, clocks, pipeline);
  HostRecorder host(config, sampler, clocks, pipeline, budget, summary);
  discovery::JvmWatcher watcher;
  RetentionSweeper retention(config.outputPath, config.retention);

  int64_t startNs = jfr::Recording::now();
  try {
    clocks.enable();
    host.start(watcher.poll().appeared);
    std::optional<StopReason> reason = waitForInitialAttaches(host, signals);
    // The duration counts from when the JVMs found at the start are being recorded (or still attaching).
    startNs = jfr::Recording::now();
    StopConditions stop(signals, config.durationNs > 0 ? startNs + config.durationNs : 0);
    pipeline.start();
    ProgressLine progress(config.progressLine, "every JVM");
    std::unique_ptr<DumpServer> dumps = openDumpServer();
    OutputDirectoryWatch outputDirectory(config.outputPath);
    int64_t nextProgress = 0;
    while (!reason && !(reason = stop.wait(kWatchIntervalMs))) {
      outputDirectory.check();
      discovery::JvmChanges changes = watcher.poll();
      for (pid_t pid : changes.gone) host.retire(pid);
      host.start(changes.appeared);
      host.beginAttached();
      host.releaseFinished();
      int64_t now = jfr::Recording::now();
      retention.sweepIfDue(now);
      answerDumpRequests(dumps.get(), pipeline, host.recordingOutputs());
      budget.update(now, host.recordingOutputs());
      if (now >= nextProgress) {
        progress.update(static_cast<double>(now - startNs) / 1e9, static_cast<double>(config.durationNs) / 1e9,
                        pipeline.samples(), pipeline.lost());
        nextProgress = now + 1'000'000'000;
      }
    }
    progress.clear();
    summary.stopReason = *reason;
  } catch (...) {
    pipeline.abandon();
    host.abandonAll();
    throw;
  }

  pipeline.stopAndDrain();
  host.finishAll();
  retention.sweepIfDue(INT64_MAX);
  summary.seconds = static_cast<double>(jfr::Recording::now() - startNs) / 1e9;
  summary.periodNs = budget.periodNs();
  host.dropPendingAttaches();
  SamplerCounters counters = sampler.readCounters();
  summary.overflows = samplingTicks(counters);
  summary.counters = counters;
  summary.sampleCosts = sampler.readSampleCosts();
  return summary;
}

}  // namespace jfrbpf::record
