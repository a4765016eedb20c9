#include "userspace/record/session/host_targets.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "base/error.h"
#include "userspace/discovery/discovery.h"
#include "userspace/discovery/display_text.h"
#include "userspace/record/files/file_series.h"
#include "userspace/record/jvm/jvm_setup.h"
#include "userspace/record/session/jvm_information.h"
#include "userspace/record/session/process_contexts.h"

namespace jfrbpf::record {
namespace {

// How long the duration waits for the agents of the JVMs found at the start, so that their files begin with
// Java frames; slower ones are recorded with native frames until their agents attach.
constexpr int64_t kInitialAttachWaitNs = 5'000'000'000;
constexpr int kAttachPollMs = 20;

// The service.name JVM `pid` publishes in its OpenTelemetry process context, or "" (a context that cannot be
// read is said in the JVM's file, once it is a target).
std::string publishedServiceName(pid_t pid) {
  try {
    std::optional<otel::ProcessContext> context = readProcessContextOf(pid);
    const std::string* name = context ? context->resourceValue("service.name") : nullptr;
    return name != nullptr ? *name : "";
  } catch (const Error&) {
    return "";
  }
}

}  // namespace

void HostTargets::start(const std::vector<pid_t>& pids) {
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
    host->information = jvmInformationOf(*info);
    host->resource = processResourceOf(*info);
    host->prefix = jvmFilePrefix(*info, publishedServiceName(pid));
    if (!config_.rotation.enabled()) {
      host->path = unusedPath(std::filesystem::path(config_.outputPath) / (host->prefix + ".jfr"));
    }
    host->attachment = session_.attach(pid);
    HostJvm& added = *jvms_.emplace(pid, std::move(host)).first->second;
    if (beganAll_) begin(added);
  }
}

bool HostTargets::takeAttached() {
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
      session_.startSources(*host->jvm, notes);
      session_.joinLateJvm(*host->jvm, *attachment, *host->output, std::move(notes));
    } else {
      session_.refuseLateJvm(*attachment, *host->output);
    }
  }
  return waiting;
}

void HostTargets::beginAll() {
  beganAll_ = true;
  for (auto& [pid, host] : jvms_) {
    if (!host->output) begin(*host);
  }
}

void HostTargets::endAttaches() {
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

void HostTargets::retire(pid_t pid) {
  auto it = jvms_.find(pid);
  if (it == jvms_.end()) return;
  HostJvm* host = it->second.get();
  exited_.push_back(std::move(it->second));  // the pid may come back as another JVM
  jvms_.erase(it);
  if (!host->output) return;  // still waiting for its attach at the start: nothing recorded
  session_.retireTarget(pid, [host] {
    // On the consumer thread: one JVM's file that cannot be written whole (a full disk) must not end the
    // recording of the others. It is said now, and the recording's exit status says it at the end.
    try {
      host->output->finish(jfr::Recording::now(), /*finalTraces=*/true);
    } catch (const Error& e) {
      host->failure = e.what();
      std::fprintf(stderr, "jfrbpf: warning: JVM %d: %s\n", static_cast<int>(host->pid), e.what());
    }
    host->finished.store(true, std::memory_order_release);
  });
  session_.tell("JVM " + std::to_string(pid) + " exited: finishing " + host->path);
}

void HostTargets::releaseFinished() {
  std::erase_if(exited_, [this](const std::unique_ptr<HostJvm>& host) {
    if (host->attachment && !host->attachment->done()) return false;  // it notices the exit soon
    if (!host->output) return true;
    if (!host->finished.load(std::memory_order_acquire)) return false;
    if (!host->failure.empty()) failures_.push_back("JVM " + std::to_string(host->pid) + ": " + host->failure);
    account(*host);
    if (host->slotBase) session_.releaseTimingSlots(*host->slotBase);  // its last timings are in its file
    return true;
  });
}

std::vector<TargetOutput*> HostTargets::recordingOutputs() const {
  std::vector<TargetOutput*> outputs;
  for (const auto& [pid, host] : jvms_) {
    if (host->output) outputs.push_back(host->output.get());
  }
  return outputs;
}

void HostTargets::finishAll() {
  for (HostJvm* host : all()) {
    if (!host->output) continue;
    if (!host->finished) host->output->finish(jfr::Recording::now(), /*finalTraces=*/true);
    if (!host->failure.empty()) failures_.push_back("JVM " + std::to_string(host->pid) + ": " + host->failure);
    account(*host);
  }
  std::sort(summary_.files.begin(), summary_.files.end(),
            [](const RecordSummary::File& a, const RecordSummary::File& b) { return a.pid < b.pid; });
  if (!failures_.empty()) {
    throw Error(std::to_string(failures_.size()) + " JVM file(s) could not be written whole; the first: " +
                failures_.front());
  }
}

void HostTargets::abandonAll() {
  for (HostJvm* host : all()) {
    if (host->output && !host->finished) host->output->abandon();
  }
}

void HostTargets::passOnNotes(HostJvm& host) {
  for (std::string& note : host.attachment->takeNotes()) session_.tell(std::move(note), host.output.get());
}

void HostTargets::account(const HostJvm& host) {
  const TargetOutput& output = *host.output;
  summary_.files.push_back({host.pid, output.path(), output.fileCount(), host.mainClass, output.samples(),
                            output.lost(), host.jvm != nullptr});
  output.addCountsTo(summary_);
  summary_.fileCount += output.fileCount();
  if (host.jvm) session_.addJvmsTo(summary_, {host.jvm.get()});
}

std::vector<HostJvm*> HostTargets::all() const {
  std::vector<HostJvm*> hosts;
  for (const auto& [pid, host] : jvms_) hosts.push_back(host.get());
  for (const auto& host : exited_) hosts.push_back(host.get());
  std::stable_sort(hosts.begin(), hosts.end(), [](const HostJvm* a, const HostJvm* b) { return a->pid < b->pid; });
  return hosts;
}

std::string HostTargets::unusedPath(const std::filesystem::path& wanted) {
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

void HostTargets::begin(HostJvm& host, std::vector<std::string> notes, StackEnd withoutAgent) {
  const pid_t pid = host.pid;
  if (host.jvm) host.slotBase = session_.prepareJvm(*host.jvm, notes);
  std::optional<FileSeries> series;
  if (config_.rotation.enabled()) {
    series.emplace(config_.outputPath, host.prefix, config_.rotation);
    host.path = series->nextPath(time(nullptr));
  }
  host.output = session_.openOutput(host.path, std::move(series));
  host.output->describeJvm(host.information, host.resource);
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
    session_.startSources(*host.jvm, eventNotes);
    for (const std::string& note : eventNotes) host.output->note("warning", note);
  }
  session_.tell("recording JVM " + std::to_string(pid) + " (" + discovery::printableText(host.mainClass) + ") into " +
                host.path + (host.jvm ? "" : " (native frames until its agent attaches)"));
}

std::optional<StopReason> HostTargets::beginStartJvms(const BlockedStopSignals& signals) {
  StopConditions waited(signals, jfr::Recording::now() + kInitialAttachWaitNs);
  while (takeAttached()) {
    std::optional<StopReason> reason = waited.wait(kAttachPollMs);
    if (reason == StopReason::Duration) break;
    if (reason) return reason;
  }
  beginAll();
  return std::nullopt;
}

void HostTargets::turn(const discovery::JvmChanges& changes) {
  for (pid_t pid : changes.gone) retire(pid);
  start(changes.appeared);
  takeAttached();
  releaseFinished();
}

}  // namespace jfrbpf::record
