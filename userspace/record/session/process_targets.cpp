#include "userspace/record/session/process_targets.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <functional>
#include <optional>

#include "base/error.h"
#include "base/startup_marks.h"
#include "userspace/discovery/discovery.h"
#include "userspace/proc/comm.h"
#include "userspace/record/files/file_series.h"
#include "userspace/record/jvm/jvm_setup.h"
#include "userspace/record/session/jvm_information.h"

namespace jfrbpf::record {
namespace {

// How long the recording waits for the agents of its JVMs before it starts: a JVM that cannot take the
// agent by then (still starting, or not answering) is sampled with native frames until it can.
constexpr auto kStartAttachWait = std::chrono::seconds(10);

// With --rotate, the files of `pid` are named after it: what runs in it, and its container.
std::string filePrefixOf(const RecordConfig& config, pid_t pid) {
  if (std::optional<discovery::JvmInfo> jvm = discovery::inspectJvm(pid)) return jvmFilePrefix(*jvm);
  std::string what = config.command.empty() ? proc::readThreadComm(pid, pid) : config.command.front();
  return processFilePrefix(pid, what, "");
}

}  // namespace

ProcessTargets::ProcessTargets(const RecordConfig& config)
    : config_(config), launchesJava_(!config.command.empty() && isJavaLauncher(config.command.front())) {
  for (pid_t pid : config.pids) pinned_.push_back(pinProcess(pid));
}

size_t ProcessTargets::jvmsAtOnce() const { return config_.pids.size() + (launchesJava_ ? 1 : 0); }

std::string ProcessTargets::outputDirectory() const {
  if (config_.rotation.enabled()) return config_.outputPath;
  return std::filesystem::absolute(config_.outputPath).parent_path().string();
}

void ProcessTargets::connect(RecordingSession& session) {
  attaching_ = session.takeStartAttachments();
  // Java frames need the JVM's tables in BPF before its first sample: wait for the agents before targeting
  // the JVMs, for a while. A JVM still starting then is recorded with native frames until it takes the agent.
  const auto deadline = std::chrono::steady_clock::now() + kStartAttachWait;
  for (auto& attachment : attaching_) {
    attachment->waitUntilDone(std::chrono::duration_cast<std::chrono::milliseconds>(
        std::max(deadline - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero())));
  }
  startupMark("attaches waited for");
  std::erase_if(attaching_, [&](std::unique_ptr<JvmAttachment>& attachment) {
    if (!attachment->done()) return false;
    for (std::string& note : attachment->takeNotes()) session.tell(std::move(note));
    if (auto jvm = attachment->takeConnection()) {
      jvms_.push_back(std::move(jvm));
    } else if (!attachment->jvmExited()) {
      notes_.push_back(session.tell(attachment->failureNote()));
      if (attachment->isJvm()) refusedJvms_.push_back(attachment->pid());
    }
    return true;
  });
  if (config_.methodTiming.enabled() && jvms_.empty() && attaching_.empty() && !launchesJava_) {
    throw Error("method timing needs a HotSpot JVM, and no target is one (see the notes above)", ErrorKind::Target);
  }
  for (auto& jvm : jvms_) publishJvm(*jvm, session.sampler(), notes_);
  startupMark("jvms published");
}

void ProcessTargets::launch(const rlimit& openFiles) {
  if (config_.command.empty()) return;
  std::vector<std::string> command = config_.command;
  if (launchesJava_) {
    launchedJvm_ = JvmConnection::forLaunch(sessionLimitsOf(config_.memoryLimitBytes));
    command.insert(command.begin() + 1, launchedJvm_->launchOption());
  }
  launched_ = std::make_unique<LaunchedProcess>(command, openFiles);
}

void ProcessTargets::open(RecordingSession& session, StopConditions& stop) {
  for (size_t i = 0; i < config_.pids.size(); ++i) stop.watchProcess(config_.pids[i], std::move(pinned_[i]));
  if (launched_) stop.watchProcess(launched_->pid());
  const pid_t firstTarget = launched_ && config_.pids.empty() ? launched_->pid() : config_.pids.front();
  std::optional<FileSeries> series;
  if (config_.rotation.enabled()) series.emplace(config_.outputPath, filePrefixOf(config_, firstTarget), config_.rotation);
  const std::string firstPath = series ? series->nextPath(time(nullptr)) : config_.outputPath;
  output_ = session.openOutput(firstPath, std::move(series));
  // A file of one running JVM describes it; one of several processes, or of a launch, describes none.
  if (config_.pids.size() == 1 && !launched_) {
    if (std::optional<discovery::JvmInfo> jvm = discovery::inspectJvm(config_.pids.front())) {
      output_->describeJvm(jvmInformationOf(*jvm), processResourceOf(*jvm));
    }
  }
  for (auto& jvm : jvms_) output_->addJvm(*jvm);
  for (auto& attachment : attaching_) output_->setJavaFramesMissing(attachment->pid(), StackEnd::kJavaFramesPending);
  for (pid_t pid : refusedJvms_) output_->setJavaFramesMissing(pid, StackEnd::kJavaFramesUnavailable);
}

void ProcessTargets::begin(RecordingSession& session, const BlockedStopSignals& signals) {
  for (pid_t pid : config_.pids) session.beginTarget(pid, *output_);
  // The launched child is still one gated thread, running our code: its own code is followed once released.
  if (launched_) session.beginTarget(launched_->pid(), *output_, /*codeMapped=*/false);
  std::vector<JvmConnection*> jvms;
  for (auto& jvm : jvms_) jvms.push_back(jvm.get());
  session.startSampling();
  session.askAgents(jvms, signals.stopPending(), notes_);
  if (launched_) {
    launched_->release();
    session.followCode(launched_->pid(), *output_);
  }
  for (const std::string& note : notes_) output_->note("warning", note);
  notes_.clear();
  // Before the launched JVM is connected: its native unwind tables must follow its start-up.
  session.startConsumer();
  // Else the output does not refer to it: its session ended, it goes.
  if (launchedJvm_ && !session.addLaunchedJvm(*launchedJvm_, launched_->pid(), *output_)) launchedJvm_.reset();
}

void ProcessTargets::turn(RecordingSession& session, StopConditions& stop) {
  retireExited(session, stop, /*othersGoOn=*/true);
  joinAttached(session);
}

void ProcessTargets::end(RecordingSession& session, StopConditions& stop) {
  retireExited(session, stop, /*othersGoOn=*/false);
  for (auto& attachment : attaching_) {
    if (!attachment->done()) {
      session.tell("JVM " + std::to_string(attachment->pid()) +
                   ": the recording ended before its agent attached: native frames only");
    }
  }
  attaching_.clear();
}

// A target that exited is let go at once: nothing of a process that gets its pid is taken for it.
void ProcessTargets::retireExited(RecordingSession& session, StopConditions& stop, bool othersGoOn) {
  for (pid_t pid : stop.takeExited()) {
    std::function<void()> noteInFile;
    if (othersGoOn) {
      const std::string note = session.tell("process " + std::to_string(pid) + " exited; recording the other targets");
      noteInFile = [output = output_.get(), note] { output->note("info", note); };
    }
    session.retireTarget(pid, std::move(noteInFile));
  }
}

// The JVMs that could not take the agent at the start take it as soon as they can.
void ProcessTargets::joinAttached(RecordingSession& session) {
  std::erase_if(attaching_, [&](std::unique_ptr<JvmAttachment>& attachment) {
    for (std::string& note : attachment->takeNotes()) session.tell(std::move(note), output_.get());
    if (!attachment->done()) return false;
    if (auto jvm = attachment->takeConnection()) {
      std::vector<std::string> notes;
      session.prepareJvm(*jvm, notes);
      session.startSources(*jvm, notes);
      session.joinLateJvm(*jvm, *attachment, *output_, std::move(notes));
      jvms_.push_back(std::move(jvm));
    } else if (!attachment->jvmExited()) {
      session.refuseLateJvm(*attachment, *output_);
    }
    return true;
  });
}

void ProcessTargets::finish() { output_->finish(jfr::Recording::now(), /*finalTraces=*/true); }

void ProcessTargets::abandon() {
  if (output_) output_->abandon();
}

void ProcessTargets::addTo(RecordSummary& summary, RecordingSession& session) {
  summary.outputPath = config_.rotation.enabled() ? output_->path() : config_.outputPath;
  summary.fileCount = output_->fileCount();
  output_->addCountsTo(summary);
  std::vector<const JvmConnection*> jvms;
  for (const auto& jvm : jvms_) jvms.push_back(jvm.get());
  if (launchedJvm_) jvms.push_back(launchedJvm_.get());
  session.addJvmsTo(summary, jvms);
  int status = 0;
  if (launched_ && launched_->reap(status)) summary.launchedExitStatus = status;
}

std::string ProcessTargets::describe() const {
  if (launched_) return config_.command.front() + " (pid " + std::to_string(launched_->pid()) + ")";
  std::string text = config_.pids.size() == 1 ? "pid " : "pids ";
  for (size_t i = 0; i < config_.pids.size(); ++i) text += (i ? "," : "") + std::to_string(config_.pids[i]);
  return text;
}

}  // namespace jfrbpf::record
