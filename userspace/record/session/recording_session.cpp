#include "userspace/record/session/recording_session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <utility>

#include "base/error.h"
#include "base/startup_marks.h"
#include "userspace/record/jvm/jvm_setup.h"
#include "userspace/record/session/dump_requests.h"
#include "userspace/record/session/memory_budget.h"
#include "userspace/symbolize/kernel_symbolizer.h"

namespace jfrbpf::record {
namespace {

// How often the main loop looks at the stop conditions and does its own work.
constexpr int kTurnMs = 250;

}  // namespace

RecordingSession::RecordingSession(const RecordConfig& config, std::string outputDirectory, size_t timedJvmsAtOnce,
                                   const std::vector<pid_t>& attachAtStart)
    : config_(config),
      sources_(eventSourcesOf(config)),
      outputDirectory_(std::move(outputDirectory)),
      pusher_(config.push.enabled() ? std::make_unique<FilePusher>(
                                          config.push,
                                          openOutputDirectory(outputDirectory_, kPushNeedsTheDirectory).get(),
                                          outputDirectory_)
                                    : nullptr),
      tablesLoading_(std::async(std::launch::async,
                                [this, pids = config.pids] {
                                  std::vector<unwind::AddressSpace> spaces;
                                  for (pid_t pid : pids) {
                                    try {
                                      spaces.push_back(unwind::AddressSpace::forProcess(pid, unwindTables_));
                                    } catch (const Error&) {
                                      // beginTarget reads it again, and says what failed
                                    }
                                  }
                                  startupMark("unwind tables read");
                                  return spaces;
                                })),
      startAttachments_([&] {
        std::vector<std::unique_ptr<JvmAttachment>> attachments;
        for (pid_t pid : attachAtStart) attachments.push_back(attach(pid));
        return attachments;
      }()),
      sampler_(samplerConfigOf(config, sources_)),
      clocks_(config.clockMode, static_cast<uint64_t>(config.periodNs), sampler_),
      pipeline_(sampler_, clocks_, config.memoryLimitBytes, unwindTables_),
      budget_(config.maxRatePerSecond, config.periodNs, sampler_, clocks_, pipeline_),
      retention_(config.outputPath, config.retention),
      slots_(kMethodSlots, kMethodSlots / static_cast<uint32_t>(std::max<size_t>(1, timedJvmsAtOnce))) {
  startupMark("session ready");
}

std::unique_ptr<TargetOutput> RecordingSession::openOutput(const std::string& path, std::optional<FileSeries> series) {
  auto output = std::make_unique<TargetOutput>(
      std::make_unique<jfr::Recording>(recordingOptions(config_, sources_, path)), std::move(series), sampler_,
      pipeline_.kernelSymbols(), pipeline_.nativeSymbols(), config_.periodNs, [this](const OutputParts& parts) {
        SourceWriters writers;
        for (const auto& source : sources_) {
          if (std::unique_ptr<SourceWriter> writer = source->writerFor(parts)) writers.push_back(std::move(writer));
        }
        return writers;
      });
  budget_.applyTo(*output, jfr::Recording::now());
  if (pusher_) output->sendFinishedFilesTo([pusher = pusher_.get()](const std::string& file) { pusher->fileFinished(file); });
  output->keepOnly(config_.contextOnly);
  return output;
}

std::unique_ptr<JvmAttachment> RecordingSession::attach(pid_t pid) {
  return std::make_unique<JvmAttachment>(pid, permits_, sessionLimitsOf(config_.memoryLimitBytes));
}

bool RecordingSession::asksAgents() const {
  return std::any_of(sources_.begin(), sources_.end(), [](const auto& source) { return source->asksAgents(); });
}

void RecordingSession::startSampling() {
  clocks_.enable();
  startupMark("clocks enabled");
}

void RecordingSession::askAgents(const std::vector<JvmConnection*>& jvms, bool stopPending,
                                 std::vector<std::string>& notes) {
  // Once sampling runs (method traces wait for their probe program, which loads meanwhile): method timing
  // changes the JVMs' code; allocation sampling and lock profiling only switch on the JVM's heap sampler and
  // monitor events.
  if (!asksAgents()) return;
  if (stopPending) {  // asked to stop while attaching: the JVMs are left alone
    notes.push_back(tell("stopped before method timing or the JVMs' own events began: no method was instrumented"));
    return;
  }
  for (JvmConnection* jvm : jvms) {
    instrument(*jvm, notes);
    startSources(*jvm, notes);
  }
  startupMark("agents asked");
}

void RecordingSession::startConsumer() { pipeline_.start(); }

bool RecordingSession::addLaunchedJvm(JvmConnection& jvm, pid_t pid, TargetOutput& output) {
  bool added = false;
  try {
    jvm.acceptLaunched(pid, kAgentTimeout);
    std::vector<std::string> notes;
    if (asksAgents()) {
      // The agent reports the JVM as it starts; its hook sites come with its first records.
      jvm.session().drainUntil([](const jvm::JavaModel& m) { return m.timedMethods().hookSites().has_value(); },
                               kAgentTimeout);
    }
    prepareJvm(jvm, notes);
    startSources(jvm, notes);
    // The output has the JVM before it goes on: the samples of the threads it then starts are resolved, and
    // their threads named, with the agent's records from the first one on.
    auto taken = std::make_shared<std::promise<void>>();
    std::future<void> takenDone = taken->get_future();
    pipeline_.runOnConsumer([&output, taken, &jvm, notes] {
      output.addJvm(jvm);
      for (const std::string& note : notes) output.note("warning", note);
      taken->set_value();
    });
    added = true;
    if (takenDone.wait_for(kAgentTimeout) != std::future_status::ready) {
      throw Error("the recording did not take the launched JVM in time");
    }
    jvm.resumeLaunched(kAgentTimeout);
  } catch (const Error& e) {
    tell("the launched JVM's agent did not connect (" + std::string(e.what()) + "): recording native frames only",
         &output, "warning");
  }
  return added;
}

void RecordingSession::beginTarget(pid_t pid, TargetOutput& output, bool codeMapped) {
  if (tablesLoading_.valid()) prefetchedTables_ = tablesLoading_.get();  // before the cache is used here
  // Before its clocks start: where its threads keep their contexts is known by its first sample.
  contexts_.add(pid, output);
  clocks_.addProcess(pid);
  const ThreadCpuTimes cpuStart = readThreadCpuTimes(pid);
  output.beginTarget(pid, cpuStart);
  if (codeMapped) pipeline_.addProcess(pid, output);
  sampler_.addTarget(static_cast<uint32_t>(pid), cpuStart);
  startupMark("target begun");
}

void RecordingSession::followCode(pid_t pid, TargetOutput& output) { pipeline_.addProcess(pid, output); }

void RecordingSession::retireTarget(pid_t pid, std::function<void()> whenDrained) {
  sampler_.removeTarget(static_cast<uint32_t>(pid));
  clocks_.removeProcess(pid);
  contexts_.remove(pid);
  pipeline_.retireProcess(pid, std::move(whenDrained));
}

std::optional<uint32_t> RecordingSession::prepareJvm(JvmConnection& jvm, std::vector<std::string>& notes) {
  publishJvm(jvm, sampler_, notes);
  return instrument(jvm, notes);
}

void RecordingSession::startSources(JvmConnection& jvm, std::vector<std::string>& notes) {
  for (const auto& source : sources_) source->startInJvm(jvm, sampler_, notes);
}

std::optional<uint32_t> RecordingSession::instrument(JvmConnection& jvm, std::vector<std::string>& notes) {
  Instrumentation request;
  for (const auto& source : sources_) source->addInstrumentation(jvm, request);
  if (request.empty()) return std::nullopt;
  std::optional<uint32_t> base = slots_.acquire();
  if (!base) {
    notes.push_back(std::string(request.what()) + " not started: " + std::to_string(kMethodSlots / slots_.rangeSize()) +
                    " JVMs are timed already (a JVM's slots serve the next one once its file is finished)");
    return std::nullopt;
  }
  record::instrument(jvm, sampler_, request, *base, *base + slots_.rangeSize(), notes);
  return base;
}

void RecordingSession::joinLateJvm(JvmConnection& jvm, const JvmAttachment& attachment, TargetOutput& output,
                                   std::vector<std::string> notes) {
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(attachment.waited());
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", static_cast<double>(waited.count()) / 1000);
  const std::string since = tell("JVM " + std::to_string(jvm.pid()) + ": Java frames from now on (its agent attached " +
                                 seconds + " s after the first try" +
                                 (attachment.firstRefusal().empty() ? "" : "; the JVM was still starting") + ")");
  notes.push_back(since + "; its samples before have native and kernel frames only" +
                  (attachment.firstRefusal().empty() ? "" : " (first answer: " + attachment.firstRefusal() + ")"));
  pipeline_.runOnConsumer([&output, &jvm, notes = std::move(notes)] {
    output.addJvm(jvm);
    for (const std::string& text : notes) output.note("info", text);
  });
}

void RecordingSession::refuseLateJvm(const JvmAttachment& attachment, TargetOutput& output) {
  std::string note = tell(attachment.failureNote());
  const pid_t pid = attachment.pid();
  const bool isJvm = attachment.isJvm();
  pipeline_.runOnConsumer([&output, pid, isJvm, note = std::move(note)] {
    if (isJvm) output.setJavaFramesMissing(pid, StackEnd::kJavaFramesUnavailable);
    output.note("warning", note);
  });
}

std::string RecordingSession::tell(std::string note, TargetOutput* output, const char* level) {
  if (progress_) progress_->clear();
  std::fprintf(stderr, "jfrbpf: %s\n", note.c_str());
  if (output) {
    pipeline_.runOnConsumer([output, note, level] { output->note(level, note); });
  }
  return note;
}

StopReason RecordingSession::run(StopConditions& stop, const std::string& what, int64_t startNs,
                                 const std::function<void()>& turn,
                                 const std::function<std::vector<TargetOutput*>()>& outputs) {
  progress_.emplace(config_.progressLine, what);
  if (tablesLoading_.valid()) tablesLoading_.wait();
  prefetchedTables_.clear();  // the targets' own mapping lists hold what they use
  std::unique_ptr<DumpServer> dumps = openDumpServer();
  OutputDirectoryWatch outputDirectory(outputDirectory_);
  std::optional<StopReason> reason;
  while (!(reason = stop.wait(kTurnMs))) {
    turn();
    contexts_.poll();
    outputDirectory.check();
    const int64_t now = jfr::Recording::now();
    retention_.sweepIfDue(now);
    if (pusher_) {
      for (std::string& message : pusher_->takeMessages()) tell(std::move(message));
    }
    const std::vector<TargetOutput*> current = outputs();
    tellIfKernelFramesUnnamed(current);
    answerDumpRequests(dumps.get(), pipeline_, current, [this] {
      std::vector<std::string> status;
      if (pusher_) {
        for (const PushCounts& counts : pusher_->counts()) status.push_back("pushed   " + describe(counts));
      }
      return status;
    });
    budget_.update(now, current);
    progress_->update(static_cast<double>(now - startNs) / 1e9, static_cast<double>(config_.durationNs) / 1e9,
                      pipeline_.samples(), pipeline_.lost());
  }
  progress_.reset();
  contexts_.poll();  // a context published since the last turn is in the files too
  return *reason;
}

void RecordingSession::tellIfKernelFramesUnnamed(const std::vector<TargetOutput*>& outputs) {
  if (toldKernelFramesUnnamed_) return;
  const std::string why = pipeline_.kernelSymbols().failure();
  if (why.empty()) return;
  toldKernelFramesUnnamed_ = true;
  const std::string note = "kernel frames are unnamed: " + why;
  if (progress_) progress_->clear();
  std::fprintf(stderr, "jfrbpf: %s\n", note.c_str());
  for (TargetOutput* output : outputs) {
    pipeline_.runOnConsumer([output, note] { output->note("warning", note); });
  }
}

void RecordingSession::endSampling() { pipeline_.stopAndDrain(); }

void RecordingSession::endRecording(RecordSummary& summary, int64_t startNs) {
  // No check of the output directory's path needed: retention sweeps the directory it opened at the start.
  retention_.sweepIfDue(INT64_MAX);
  if (pusher_) {
    pusher_->finish(config_.push.timeoutNs, summary);
    for (std::string& message : pusher_->takeMessages()) tell(std::move(message));
  }
  summary.seconds = static_cast<double>(jfr::Recording::now() - startNs) / 1e9;
  summary.periodNs = budget_.periodNs();
  pipeline_.addUnfiledLossesTo(summary);
  pipeline_.addMemoryTo(summary);
  const SamplerCounters counters = sampler_.readCounters();
  summary.overflows = samplingTicks(counters);
  summary.counters = counters;
  summary.sampleCosts = sampler_.readSampleCosts();
  summary.traceCounters = sampler_.readTimerCounters();  // traces and allocation samples alike
  for (const auto& source : sources_) summary.sources.push_back(source->report());
}

void RecordingSession::addJvmsTo(RecordSummary& summary, const std::vector<const JvmConnection*>& jvms) {
  summary.javaProcesses += jvms.size();
  for (const JvmConnection* jvm : jvms) {
    for (const auto& source : sources_) source->jvmEnded(*jvm);
  }
}

}  // namespace jfrbpf::record
