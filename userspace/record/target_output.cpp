#include "userspace/record/target_output.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "userspace/base/debug_options.h"
#include "userspace/base/error.h"
#include "userspace/record/rate_governor.h"
#include "userspace/record/retention.h"
#include "userspace/timing/probe_sites.h"

namespace jfrbpf::record {
namespace {

// What a JVM unloaded (classes, compiled code) and threads that ended stay known this long, then go: a
// long-lived JVM that keeps defining classes keeps a bounded model. Records reach the pipeline within a
// fraction of a second (and wait for the agent's metadata at most jvm::MetadataWait::kMaxWaitNs); the margin
// covers a busy host.
constexpr jfr::Ticks kForgetGoneAfterNs = 30'000'000'000;
constexpr jfr::Ticks kForgetGoneEveryNs = 5'000'000'000;

std::string_view offCpuStateName(uint16_t state) {
  switch (state) {
    case JFRBPF_OFF_CPU_SLEEPING: return "sleeping";
    case JFRBPF_OFF_CPU_UNINTERRUPTIBLE: return "uninterruptible";
    case JFRBPF_OFF_CPU_PREEMPTED: return "preempted";
    default: return "unknown";
  }
}

// JFRBPF_DEBUG=truncated: the walker's raw frames (pc, and Method* of interpreted ones) of a truncated stack.
void printTruncatedWalk(const jfrbpf_sample_record& record, StackEnd end) {
  std::string line = "jfrbpf: [debug] truncated (" + std::string(stackEndCause(end)) + "), tid " +
                     std::to_string(record.tid) + ":";
  char frame[48];
  for (uint32_t i = 0; i < std::min<uint32_t>(record.user_depth, JFRBPF_MAX_USER_FRAMES); ++i) {
    std::snprintf(frame, sizeof frame, " %llx", static_cast<unsigned long long>(record.data[2 * i]));
    line += frame;
    if (record.data[2 * i + 1] == 0) continue;
    std::snprintf(frame, sizeof frame, "/%llx", static_cast<unsigned long long>(record.data[2 * i + 1]));
    line += frame;
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace

TargetOutput::TargetOutput(std::unique_ptr<jfr::Recording> out, BpfSampler& sampler,
                           const symbolize::KernelSymbolizer& kernel, symbolize::ProcessSymbolizer& native,
                           int64_t periodNs, const timing::MethodTimingOptions& timing)
    : out_(std::move(out)),
      sampler_(sampler),
      periodNs_(periodNs),
      threads_(*out_),
      stacks_(*out_, kernel, native),
      ledger_(*out_, threads_),
      truncations_(*out_),
      printTruncatedWalks_(debugOption("truncated")),
      timingOptions_(timing) {
  if (!timing.enabled()) return;
  timing_ = std::make_unique<timing::MethodTimingWriter>(
      *out_,
      [this](const jfrbpf_sample_record& record, std::vector<jfr::StackFrame>& frames) {
        ResolvedStack stack = stacks_.resolve(record);
        frames.assign(stack.frames.begin(), stack.frames.end());
        return stack.truncated();
      },
      [this](const jfrbpf_sample_record& record) { return threadOf(record); });
  nextTimingBatch_ = timing.timingPeriodNs > 0 ? jfr::Recording::now() + timing.timingPeriodNs : INT64_MAX;
}

void TargetOutput::addJvm(JvmConnection& jvm) {
  jvms_.push_back(&jvm);
  stacks_.setJavaModel(jvm.pid(), &jvm.model());
  if (timing_) {
    timing_->addJvm(jvm.pid(), jvm.model());
    timingSkipsReported_[jvm.pid()] = jvm.model().timedMethods().skips().size();  // the recorder told those
  }
}

void TargetOutput::setThreadCpuStart(pid_t pid, ThreadCpuTimes start) { cpuStarts_[pid] = std::move(start); }

void TargetOutput::writeThreadCpuTimes(jfr::Ticks now, pid_t pid, const ThreadCpuTimes& end) {
  auto start = cpuStarts_.find(pid);
  if (start == cpuStarts_.end()) return;
  refreshJavaThreadNames();  // threads first seen here get their Java names too
  for (const auto& [tid, cpuNs] : end.byTid) {
    uint64_t used = cpuTimeBetween(start->second, end, tid);
    // Idle threads too when waits are recorded: their off-CPU time is checked against wallTime - cpuTime.
    if (used == 0 && !sampler_.offCpuLoaded()) continue;
    out_->threadCpuTime(now, threads_.threadFor(pid, tid), static_cast<jfr::Ticks>(used),
                        static_cast<jfr::Ticks>(wallTimeBetween(start->second, end, pid, tid)),
                        static_cast<jfr::Ticks>(runDelayBetween(start->second, end, tid)));
  }
}

bool TargetOutput::hasJvm(pid_t pid) const {
  return std::any_of(jvms_.begin(), jvms_.end(), [pid](const JvmConnection* jvm) { return jvm->pid() == pid; });
}

void TargetOutput::forgetProcess(pid_t pid) {
  retryWaitingSamples(jfr::Recording::now(), /*all=*/true);
  stacks_.forgetProcess(pid);
}

void TargetOutput::reportTimingSkips(jfr::Ticks now) {
  for (JvmConnection* jvm : jvms_) {
    const std::vector<jvm::TimingSkip>& skips = jvm->model().timedMethods().skips();
    size_t& reported = timingSkipsReported_[jvm->pid()];
    for (; reported < skips.size(); ++reported) {
      const jvm::TimingSkip& skip = skips[reported];
      out_->note(now, "info", "JVM " + std::to_string(jvm->pid()) + ": not instrumented: " + skip.className +
                                  (skip.methodName.empty() ? "" : "::" + skip.methodName + skip.descriptor) + ": " +
                                  skip.reason);
    }
  }
}

void TargetOutput::writeMethodTimings(jfr::Ticks now) {
  timing_->writeTimings(now, [this](uint32_t slot) {
    for (const JvmConnection* jvm : jvms_) {
      const timing::TimingTableView* table = jvm->timingTable();
      if (table != nullptr && table->hasSlot(slot)) return table->read(slot);
    }
    return timing::MethodStats{};
  });
}

void TargetOutput::reportProbePaths(jfr::Ticks now) {
  for (JvmConnection* jvm : jvms_) {
    // A registered uprobe is an int3 until its first hit, which may optimize it: judge only after hits.
    if (!jvm->traceProbeAttached() ||
        std::find(probePathsReported_.begin(), probePathsReported_.end(), jvm->pid()) != probePathsReported_.end() ||
        !sampler_.traceProbeHit(static_cast<uint32_t>(jvm->pid()))) {
      continue;
    }
    timing::ProbeSiteState state = jvm->probeSiteState();
    if (state == timing::ProbeSiteState::kNop) continue;
    // Unreadable site bytes: the kernel's trampoline page, mapped at the first optimization, still tells.
    if (state == timing::ProbeSiteState::kUnknown && timing::hasUprobeTrampoline(jvm->pid())) {
      state = timing::ProbeSiteState::kOptimized;
    }
    probePathsReported_.push_back(jvm->pid());
    std::string message = "JVM " + std::to_string(jvm->pid()) + ": method trace uprobe: " + timing::describe(state);
    if (state == timing::ProbeSiteState::kTrap) {
      message += ": every traced call traps (~3.5 us); Linux 6.18+ on x86_64 optimizes uprobes on 5-byte NOPs";
      warn(now, message);
    } else {
      out_->note(now, "info", message);
    }
  }
}

void TargetOutput::addCountsTo(RecordSummary& summary) const {
  summary.javaFramesDropped += javaFramesDropped_;
  summary.samples += samples();
  summary.offCpuSamples += offCpuSamples();
  summary.offCpuNs += offCpuNs();
  summary.offCpuLost += ledger_.offCpuLost();
  summary.sampledCpuNs += sampledCpuNs();
  summary.failedStacks += failedStacks();
  summary.lost += ledger_.attributed();  // the unattributed ones once, by the pipeline
  summary.threads += threads();
  for (const auto& [cause, count] : ledger_.byCause()) summary.lostByCause[cause] += count;
  summary.truncatedStacks += truncations_.truncated();
  for (size_t i = 0; i < static_cast<size_t>(StackEnd::kCount); ++i) {
    auto end = static_cast<StackEnd>(i);
    if (end != StackEnd::kRoot && truncations_.samples(end) > 0) {
      summary.truncatedByCause[std::string(stackEndCause(end))] += truncations_.samples(end);
    }
  }
}

timing::TraceCounters TargetOutput::traceCounters() const {
  return timing_ ? timing_->traceCounters() : timing::TraceCounters{};
}

size_t TargetOutput::timedMethodsWritten() const { return timing_ ? timing_->timedMethodsWritten() : 0; }

uint64_t TargetOutput::timedInvocationsWritten() const { return timing_ ? timing_->invocationsWritten() : 0; }

jfr::ThreadId TargetOutput::threadOf(const jfrbpf_sample_record& record) {
  auto tgid = static_cast<pid_t>(record.tgid);
  auto tid = static_cast<pid_t>(record.tid);
  if (!threads_.knows(tgid, tid)) {
    // A thread first seen in a sample: give it its Java identity right away if the agent told us one.
    for (JvmConnection* jvm : jvms_) {
      if (jvm->pid() != tgid) continue;
      if (const jvm::JavaThreadInfo* java = jvm->model().threads().byTid(tid, record.time_ns)) {
        threads_.setJavaIdentity(tgid, tid, java->name, java->javaThreadId, java->isVirtual);
      }
    }
  }
  return threads_.threadFor(tgid, tid);
}

void TargetOutput::serviceJvms(jfr::Ticks now) {
  for (JvmConnection* jvm : jvms_) {
    jvm::JavaSession& session = jvm->session();
    if (!session.running()) continue;
    if (!session.drain()) {
      std::string reason = session.error().empty() ? "the JVM closed the agent channel" : session.error();
      if (session.end() == jvm::SessionEnd::kMemoryLimit) {
        dropJavaFrames(jvm->pid(), now, reason);
        continue;
      }
      out_->note(now, "info", "JVM " + std::to_string(jvm->pid()) + ": agent session ended: " + reason);
    }
    std::string whyNot;
    if (!jvm->publish(sampler_, whyNot) && !whyNot.empty() && !layoutWarned_) {
      layoutWarned_ = true;
      out_->note(now, "warning", "JVM " + std::to_string(jvm->pid()) + ": Java stack walking unavailable: " + whyNot);
    }
  }
  if (!waitingSamples_.empty()) retryWaitingSamples(now, /*all=*/false);
  if (now >= nextForgetGone_ && now > kForgetGoneAfterNs) {
    nextForgetGone_ = now + kForgetGoneEveryNs;
    for (JvmConnection* jvm : jvms_) jvm->session().model().forgetBefore(static_cast<uint64_t>(now - kForgetGoneAfterNs));
  }
}

std::vector<std::pair<pid_t, size_t>> TargetOutput::javaModelBytes() const {
  std::vector<std::pair<pid_t, size_t>> models;
  for (JvmConnection* jvm : jvms_) {
    if (jvm->session().running()) models.emplace_back(jvm->pid(), jvm->model().approximateBytes());
  }
  return models;
}

bool TargetOutput::dropJavaFrames(pid_t pid, jfr::Ticks now, const std::string& why) {
  auto jvm = std::find_if(jvms_.begin(), jvms_.end(), [pid](JvmConnection* j) { return j->pid() == pid; });
  if (jvm == jvms_.end()) return false;
  retryWaitingSamples(now, /*all=*/true);  // with the model they waited for, while it is there
  stacks_.dropJavaFrames(pid);
  (*jvm)->dropJavaFrames(sampler_, why);
  ++javaFramesDropped_;
  warn(now, "JVM " + std::to_string(pid) + ": Java frames dropped, native frames go on: " + why);
  return true;
}

size_t TargetOutput::handOffCpuFlushToAgents() {
  size_t handed = 0;
  for (JvmConnection* jvm : jvms_) {
    if (jvm->handOffCpuFlush(sampler_)) ++handed;
  }
  return handed;
}

void TargetOutput::onSample(const jfrbpf_sample_record& record) {
  ResolvedStack stack = stacks_.resolve(record);
  const size_t size = JFRBPF_SAMPLE_RECORD_SIZE(record.user_depth, record.kernel_depth);
  if (!stack.complete && waitingSamples_.hasRoom(size)) {
    waitingSamples_.keep(&record, size, jfr::Recording::now());
    return;
  }
  writeSample(record, stack);
}

void TargetOutput::retryWaitingSamples(jfr::Ticks now, bool all) {
  waitingSamples_.retry(now, all, [this](const void* data, size_t, bool lastChance) {
    const auto& record = *static_cast<const jfrbpf_sample_record*>(data);
    ResolvedStack stack = stacks_.resolve(record);
    if (!stack.complete && !lastChance) return false;
    writeSample(record, stack);
    return true;
  });
}

void TargetOutput::writeSample(const jfrbpf_sample_record& record, const ResolvedStack& stack) {
  if (record.flags & JFRBPF_SAMPLE_OFF_CPU) {
    writeOffCpuSample(record, stack);
    return;
  }
  const bool failed = (record.flags & JFRBPF_SAMPLE_USER_STACK_FAILED) != 0 && stack.frames.empty();
  // A record stands for whole sampling periods of the thread's CPU time, by the kernel's accounting: one
  // sample each, so that readers that count samples see the thread's CPU time as well as those that add up
  // samplingPeriod (bpf/thread_cpu_time.bpf.h).
  const auto count = static_cast<uint32_t>(std::max<uint64_t>(1, record.periods));
  const auto each = record.cpu_time_ns > 0 ? static_cast<jfr::Ticks>(record.cpu_time_ns / count) : periodNs_;
  truncations_.count(stack.end, count);
  if (stack.truncated() && printTruncatedWalks_) printTruncatedWalk(record, stack.end);
  jfr::ThreadId thread = threadOf(record);
  out_->cpuSample(static_cast<jfr::Ticks>(record.time_ns), stack.frames, stack.truncated(), thread, failed, each, count);
  samples_.fetch_add(count, std::memory_order_relaxed);
  cpuNs_.fetch_add(static_cast<uint64_t>(each) * count, std::memory_order_relaxed);
  if (failed) failed_.fetch_add(count, std::memory_order_relaxed);
}

void TargetOutput::writeOffCpuSample(const jfrbpf_sample_record& record, const ResolvedStack& stack) {
  truncations_.count(stack.end);
  const auto weight = static_cast<jfr::Ticks>(record.cpu_time_ns);
  out_->offCpuSample(static_cast<jfr::Ticks>(record.time_ns), static_cast<jfr::Ticks>(record.off_cpu_ns), threadOf(record),
                     stack.frames, stack.truncated(), weight, offCpuStateName(record.off_cpu_state),
                     static_cast<jfr::Ticks>(record.run_delay_ns));
  offCpuSamples_.fetch_add(1, std::memory_order_relaxed);
  offCpuNs_.fetch_add(static_cast<uint64_t>(weight), std::memory_order_relaxed);
}

void TargetOutput::onTrace(const void* data, size_t size) {
  if (timing_) timing_->onTrace(data, size);
}

void TargetOutput::afterTraces() {
  if (timing_) timing_->retryPending();
}

// Java threads renamed or started since the last look: keep the Thread constants in step. Ended threads
// kept their last name when they ended (a sample of theirs still to come finds it in threadOf).
void TargetOutput::refreshJavaThreadNames() {
  for (JvmConnection* jvm : jvms_) {
    jvm->model().threads().forEach([&](const jvm::JavaThreadInfo& java) {
      if (java.tid > 0 && java.endTicks == UINT64_MAX)
        threads_.setJavaIdentity(jvm->pid(), java.tid, java.name, java.javaThreadId, java.isVirtual);
    });
  }
}

void TargetOutput::periodicWork(jfr::Ticks now, const std::vector<ThreadLoss>& losses) {
  refreshJavaThreadNames();
  ledger_.reportThreadLosses(now, losses);
  truncations_.report(now);
  if (timing_) {
    reportProbePaths(now);
    reportTimingSkips(now);
    if (now >= nextTimingBatch_) {
      writeMethodTimings(now);
      nextTimingBatch_ = now + timingOptions_.timingPeriodNs;
    }
  }
}

void TargetOutput::flushIfDue(jfr::Ticks now) { out_->rotateIfDue(now); }

std::vector<DumpFile> TargetOutput::filesForDump() {
  out_->rotate();
  const std::string label = series_ ? series_->prefix() : std::filesystem::path(out_->path()).stem().string();
  std::vector<std::string> paths;
  if (series_) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(series_->directory(), ec)) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with(label + "-") && isFinishedRecordingName(name)) paths.push_back(entry.path().string());
    }
    std::sort(paths.begin(), paths.end());  // by time: the names are stamped
  }
  std::vector<DumpFile> files;
  for (const std::string& path : paths) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    struct stat st {};
    if (fd && ::fstat(fd.get(), &st) == 0) files.push_back({label, std::move(fd), static_cast<uint64_t>(st.st_size)});
  }
  jfr::Recording::WrittenPart current = out_->writtenPart();
  UniqueFd fd(::open(current.temporaryPath.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd && current.bytes > 0) files.push_back({label, std::move(fd), current.bytes});
  return files;
}

void TargetOutput::rotateThrough(FileSeries series) {
  series_ = std::move(series);
  fileOpened_ = jfr::Recording::now();
}

bool TargetOutput::fileDue(jfr::Ticks now) const {
  return series_ && series_->due(now, fileOpened_, out_->stats().bytesWritten);
}

void TargetOutput::continueInNextFile(jfr::Ticks now) {
  truncations_.report(now);
  for (auto& [pid, start] : cpuStarts_) {
    ThreadCpuTimes end = readThreadCpuTimes(pid);
    if (end.byTid.empty()) continue;  // gone: its retirement writes what it used
    writeThreadCpuTimes(now, pid, end);
    start = std::move(end);
  }
  if (timing_) writeMethodTimings(now);  // JFR's endChunk values, cumulative, so that each file has them
  const std::string finishing = out_->path();
  std::optional<std::string> error = out_->continueIn(series_->nextPath(time(nullptr)));
  fileOpened_ = now;  // when the next file could not be made, the next attempt comes a period later
  const bool moved = out_->path() != finishing;
  if (moved) ++files_;
  if (!error) return;
  // The recording goes on; what a finished file misses is told now and in the exit status at the end.
  warn(now, *error);
  if (moved && filesIncomplete_++ == 0) firstFileError_ = *error;
}

void TargetOutput::warn(jfr::Ticks now, const std::string& text) {
  std::fprintf(stderr, "jfrbpf: %s\n", text.c_str());
  out_->note(now, "warning", text);
}

void TargetOutput::reportUnattributed(jfr::Ticks now, const char* cause, uint64_t count) {
  ledger_.reportUnattributed(now, cause, count);
}

void TargetOutput::samplingPeriodChanged(jfr::Ticks now, int64_t periodNs, const std::string& why) {
  periodNs_ = periodNs;
  const jfr::SampleEvents events = out_->sampleEvents();
  if (events != jfr::SampleEvents::kExecution) {
    out_->changeSetting({"jdk.CPUTimeSample", "throttle", periodSetting(periodNs)});
  }
  if (events != jfr::SampleEvents::kCpuTime) out_->changeSetting({"jdk.ExecutionSample", "period", periodSetting(periodNs)});
  out_->note(now, "info", why);
}

void TargetOutput::finish(jfr::Ticks now, bool finalTraces) {
  serviceJvms(now);  // the agents' last records first: they may name what waiting samples ran
  retryWaitingSamples(now, /*all=*/true);
  truncations_.report(now);
  if (timing_ && finalTraces) timing_->retryPending(/*final=*/true);
  refreshJavaThreadNames();
  if (timing_) writeMethodTimings(now);  // JFR's endChunk: the recording's last chunk ends here
  out_->close();
  if (filesIncomplete_ > 0) {
    throw Error(std::to_string(filesIncomplete_) + " of " + std::to_string(files_) +
                " files of the recording are incomplete; the first: " + firstFileError_);
  }
}

}  // namespace jfrbpf::record
