#include "userspace/record/host_recorder.h"

// One BPF sampler for every HotSpot JVM on the host, a file per JVM. JVMs that start during the recording
// are picked up by a watcher; a JVM that exits gets its file finished then.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "base/error.h"
#include "userspace/discovery/discovery.h"
#include "userspace/discovery/display_text.h"
#include "userspace/discovery/jvm_watcher.h"
#include "userspace/record/jvm/jvm_attachment.h"
#include "userspace/record/jvm/jvm_setup.h"
#include "userspace/record/output/target_output.h"
#include "userspace/record/session/privileges.h"
#include "userspace/record/session/recording_session.h"
#include "userspace/record/session/stop_conditions.h"

namespace jfrbpf::record {
namespace {

// How many JVMs may have methods timed at once: each has a range of the statistics slots, which serves the
// next JVM once its file is finished.
constexpr size_t kTimedJvmsAtOnce = 64;
// How long the duration waits for the agents of the JVMs found at the start, so that their files begin with
// Java frames; slower ones are recorded with native frames until their agents attach.
constexpr int64_t kInitialAttachWaitNs = 5'000'000'000;
constexpr int kAttachPollMs = 20;

struct HostJvm {
  pid_t pid = 0;
  std::string prefix;  // of its file name
  std::string path;    // its file; with --rotate, its first
  std::string mainClass;
  std::unique_ptr<JvmAttachment> attachment;  // until its attach ended
  std::unique_ptr<JvmConnection> jvm;         // null until (unless) its agent attached
  std::unique_ptr<TargetOutput> output;       // null until its recording began
  std::optional<uint32_t> slotBase;
  std::atomic<bool> finished{false};
};

class HostRecorder {
 public:
  HostRecorder(RecordingSession& session, RecordSummary& summary)
      : config_(session.config()), session_(session), summary_(summary) {}

  // Starts attaching to each of `pids` that is a JVM we should record into its own file. Once the JVMs
  // found at the start had their turn (beginAll), a JVM's recording begins at once, with native frames
  // until its agent attaches: a JVM found while it starts takes the agent only once it can.
  void start(const std::vector<pid_t>& pids) {
    for (pid_t pid : pids) {
      if (jvms_.count(pid)) continue;
      std::optional<discovery::JvmInfo> info = discovery::inspectJvm(pid);
      if (!info) continue;
      if (!config_.containerFilter.empty() && !info->container.id.starts_with(config_.containerFilter)) continue;
      if (info->optedOut) {
        session_.tell("JVM " + std::to_string(pid) + " (" + discovery::printableText(info->mainClass) +
                      ") opted out (JFRBPF_OPT_OUT in its environment): not recorded");
        continue;
      }
      auto host = std::make_unique<HostJvm>();
      host->pid = pid;
      host->mainClass = info->mainClass;
      host->prefix = jvmFilePrefix(*info);
      if (!config_.rotation.enabled()) {
        host->path = unusedPath(std::filesystem::path(config_.outputPath) / (host->prefix + ".jfr"));
      }
      host->attachment = session_.attach(pid);
      HostJvm& added = *jvms_.emplace(pid, std::move(host)).first->second;
      if (beganAll_) begin(added);
    }
  }

  // Takes the outcome of every attach that ended: a JVM not recorded yet begins with it, a JVM being
  // recorded gets its Java frames from now on. Returns whether a JVM found at the start is still waiting.
  bool takeAttached() {
    bool waiting = false;
    for (auto& [pid, host] : jvms_) {
      if (!host->attachment) continue;
      passOnNotes(*host);
      if (!host->attachment->done()) {
        waiting = waiting || !host->output;
        continue;
      }
      std::unique_ptr<JvmAttachment> attachment = std::move(host->attachment);
      std::unique_ptr<JvmConnection> jvm = attachment->takeConnection();
      if (attachment->jvmExited()) continue;  // the watcher tells soon
      if (!host->output) {
        host->jvm = std::move(jvm);
        std::vector<std::string> notes;
        if (!host->jvm) notes.push_back(session_.tell(attachment->failureNote()));
        begin(*host, notes, attachment->isJvm() ? StackEnd::kJavaFramesUnavailable : StackEnd::kRoot);
      } else if (jvm) {
        host->jvm = std::move(jvm);
        std::vector<std::string> notes;
        host->slotBase = session_.prepareJvm(*host->jvm, notes);
        session_.startJvmEvents(*host->jvm, notes);
        session_.joinLateJvm(*host->jvm, *attachment, *host->output, std::move(notes));
      } else {
        session_.refuseLateJvm(*attachment, *host->output);
      }
    }
    return waiting;
  }

  // The JVMs found at the start whose agents have not attached yet begin now, with native frames until
  // they do; from here on every JVM begins as soon as it is found.
  void beginAll() {
    beganAll_ = true;
    for (auto& [pid, host] : jvms_) {
      if (!host->output) begin(*host);
    }
  }

  // At the end: the attaches still going on are given up (each waits for an attempt under way).
  void endAttaches() {
    for (HostJvm* host : all()) {
      if (!host->attachment) continue;
      if (host->output && !host->attachment->done()) {
        session_.tell("JVM " + std::to_string(host->pid) +
                      ": the recording ended before its agent attached: native frames only" +
                      (host->attachment->attempting() ? "; waiting for the attach under way to end (at most " +
                                                            std::to_string(kAgentTimeout.count()) + " s)"
                                                      : ""));
      }
      host->attachment.reset();
    }
  }

  // The JVM exited: its file is finished on the consumer thread once the rings hold nothing more of it.
  void retire(pid_t pid) {
    auto it = jvms_.find(pid);
    if (it == jvms_.end()) return;
    HostJvm* host = it->second.get();
    exited_.push_back(std::move(it->second));  // the pid may come back as another JVM
    jvms_.erase(it);
    if (!host->output) return;  // still waiting for its attach at the start: nothing recorded
    session_.retireTarget(pid, [host] {
      host->output->finish(jfr::Recording::now(), /*finalTraces=*/true);
      host->finished.store(true, std::memory_order_release);
    });
    session_.tell("JVM " + std::to_string(pid) + " exited: finishing " + host->path);
  }

  // JVMs whose files are finished leave nothing behind but their lines in the summary: a host recording
  // runs for days while JVMs come and go.
  void releaseFinished() {
    std::erase_if(exited_, [this](const std::unique_ptr<HostJvm>& host) {
      if (host->attachment && !host->attachment->done()) return false;  // it notices the exit soon
      if (!host->output) return true;
      if (!host->finished.load(std::memory_order_acquire)) return false;
      account(*host);
      if (host->slotBase) session_.releaseTimingSlots(*host->slotBase);  // its last timings are in its file
      return true;
    });
  }

  // The outputs of the JVMs being recorded now.
  std::vector<TargetOutput*> recordingOutputs() const {
    std::vector<TargetOutput*> outputs;
    for (const auto& [pid, host] : jvms_) {
      if (host->output) outputs.push_back(host->output.get());
    }
    return outputs;
  }

  // After the pipeline finished: every file not finished yet is finished now.
  void finishAll() {
    for (HostJvm* host : all()) {
      if (!host->output) continue;
      if (!host->finished) host->output->finish(jfr::Recording::now(), /*finalTraces=*/true);
      account(*host);
    }
    std::sort(summary_.files.begin(), summary_.files.end(),
              [](const RecordSummary::File& a, const RecordSummary::File& b) { return a.pid < b.pid; });
  }

  void abandonAll() {
    for (HostJvm* host : all()) {
      if (host->output && !host->finished) host->output->abandon();
    }
  }

 private:
  // What an attach still going on wants the user to know: on the terminal, and in the file once it exists.
  void passOnNotes(HostJvm& host) {
    for (std::string& note : host.attachment->takeNotes()) session_.tell(std::move(note), host.output.get());
  }

  void account(const HostJvm& host) {
    const TargetOutput& output = *host.output;
    summary_.files.push_back({host.pid, output.path(), output.fileCount(), host.mainClass, output.samples(),
                              output.lost(), host.jvm != nullptr});
    output.addCountsTo(summary_);
    summary_.fileCount += output.fileCount();
    if (host.jvm) session_.addJvmsTo(summary_, {host.jvm.get()});
  }

  std::vector<HostJvm*> all() const {
    std::vector<HostJvm*> hosts;
    for (const auto& [pid, host] : jvms_) hosts.push_back(host.get());
    for (const auto& host : exited_) hosts.push_back(host.get());
    std::stable_sort(hosts.begin(), hosts.end(), [](const HostJvm* a, const HostJvm* b) { return a->pid < b->pid; });
    return hosts;
  }

  // `wanted`, or with "-2", "-3"... before ".jfr" when a file or another JVM of this recording has it.
  std::string unusedPath(const std::filesystem::path& wanted) {
    auto taken = [&](const std::string& path) {
      std::vector<HostJvm*> hosts = all();
      return std::filesystem::exists(path) ||
             std::any_of(hosts.begin(), hosts.end(), [&](const HostJvm* host) { return host->path == path; });
    };
    std::string path = wanted.string();
    for (int n = 2; taken(path); ++n) {
      path = (wanted.parent_path() / (wanted.stem().string() + "-" + std::to_string(n) + ".jfr")).string();
    }
    return path;
  }

  // Its file opened and its samples taken from now on; with Java frames if its agent is attached, else with
  // its short stacks marked `withoutAgent` (kRoot: not at all, it is no JVM).
  void begin(HostJvm& host, std::vector<std::string> notes = {}, StackEnd withoutAgent = StackEnd::kJavaFramesPending) {
    const pid_t pid = host.pid;
    if (host.jvm) host.slotBase = session_.prepareJvm(*host.jvm, notes);
    std::optional<FileSeries> series;
    if (config_.rotation.enabled()) {
      series.emplace(config_.outputPath, host.prefix, config_.rotation);
      host.path = series->nextPath(time(nullptr));
    }
    host.output = session_.openOutput(host.path, std::move(series));
    if (host.jvm) {
      host.output->addJvm(*host.jvm);
    } else if (withoutAgent != StackEnd::kRoot) {
      host.output->setJavaFramesMissing(pid, withoutAgent);
    }
    for (const std::string& note : notes) host.output->note("warning", note);
    try {
      session_.beginTarget(pid, *host.output);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Target) throw;  // it exited while we connected: the watcher tells soon
    }
    if (host.jvm) {
      std::vector<std::string> eventNotes;
      session_.startJvmEvents(*host.jvm, eventNotes);
      for (const std::string& note : eventNotes) host.output->note("warning", note);
    }
    session_.tell("recording JVM " + std::to_string(pid) + " (" + discovery::printableText(host.mainClass) + ") into " +
                  host.path + (host.jvm ? "" : " (native frames until its agent attaches)"));
  }

  const RecordConfig& config_;
  RecordingSession& session_;
  RecordSummary& summary_;  // of the JVMs finished so far
  bool beganAll_ = false;
  std::map<pid_t, std::unique_ptr<HostJvm>> jvms_;  // alive: attaching, recording, or both
  std::vector<std::unique_ptr<HostJvm>> exited_;    // finished, or being finished on the consumer thread
};

// Begins the JVMs found at the start as their attaches end, for at most kInitialAttachWaitNs, then the
// others. Returns why to stop if a signal came meanwhile.
std::optional<StopReason> waitForInitialAttaches(HostRecorder& host, const BlockedStopSignals& signals) {
  StopConditions waited(signals, jfr::Recording::now() + kInitialAttachWaitNs);
  while (host.takeAttached()) {
    std::optional<StopReason> reason = waited.wait(kAttachPollMs);
    if (reason == StopReason::Duration) break;
    if (reason) return reason;
  }
  host.beginAll();
  return std::nullopt;
}

}  // namespace

RecordSummary recordHost(const RecordConfig& config) {
  requireProfilingPrivileges();
  raiseOpenFileLimit();
  prepareOutputDirectory(config.outputPath, "--all", config.outputOwner);
  BlockedStopSignals signals;

  RecordingSession session(config, config.outputPath, kTimedJvmsAtOnce);
  RecordSummary summary;
  summary.outputPath = config.outputPath;
  HostRecorder host(session, summary);
  discovery::JvmWatcher watcher;

  int64_t startNs = jfr::Recording::now();
  try {
    session.startSampling();
    host.start(watcher.poll().appeared);
    std::optional<StopReason> reason = waitForInitialAttaches(host, signals);
    // The duration counts from when the JVMs found at the start are being recorded (or still attaching).
    startNs = jfr::Recording::now();
    StopConditions stop(signals, config.durationNs > 0 ? startNs + config.durationNs : 0);
    session.startConsumer();
    if (!reason) {
      reason = session.run(
          stop, "every JVM", startNs,
          [&] {
            discovery::JvmChanges changes = watcher.poll();
            for (pid_t pid : changes.gone) host.retire(pid);
            host.start(changes.appeared);
            host.takeAttached();
            host.releaseFinished();
          },
          [&] { return host.recordingOutputs(); });
    }
    summary.stopReason = *reason;
  } catch (...) {
    session.abandon();
    host.abandonAll();
    throw;
  }

  session.endSampling();
  host.finishAll();
  session.endRecording(summary, startNs);
  host.endAttaches();
  return summary;
}

}  // namespace jfrbpf::record
