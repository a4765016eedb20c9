#include "userspace/record/output/target_output.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/debug_options.h"
#include "jvmsupport/protocol/virtual_thread_records.h"
#include "userspace/record/user_warning.h"

namespace jfrbpf::record {
namespace {

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

TargetOutput::TargetOutput(std::unique_ptr<jfr::Recording> out, std::optional<FileSeries> series,
                           JvmKernelSide& sampler, const symbolize::KernelSymbols& kernel,
                           symbolize::ProcessSymbolizer& native, int64_t periodNs,
                           const timing::MethodTimingOptions& timing, bool agentEvents)
    : out_(std::move(out)),
      periodNs_(periodNs),
      threads_(*out_),
      jvms_(*out_, sampler),
      files_(*out_),
      // Idle threads too when waits are recorded: their off-CPU time is checked against wallTime - cpuTime.
      cpuTimes_(*out_, threads_, sampler.offCpuLoaded()),
      stacks_(*out_, kernel, native),
      ledger_(*out_, threads_),
      truncations_(*out_),
      eventThreads_(*out_, threads_, jvms_, stacks_),
      printTruncatedWalks_(debugOption("truncated")),
      timingOptions_(timing) {
  if (series) files_.rotateThrough(std::move(*series));
  if (agentEvents) {
    agentEvents_ = std::make_unique<AgentEventWriter>(*out_, eventThreads_);
  }
  if (!timing.enabled()) return;
  timing_ = std::make_unique<timing::MethodTimingWriter>(
      *out_,
      [this](const jfrbpf_sample_record& record, std::vector<jfr::StackFrame>& frames) {
        ResolvedStack stack = eventThreads_.stackOf(record);
        frames.assign(stack.frames.begin(), stack.frames.end());
        return stack.truncated();
      },
      [this](const jfrbpf_sample_record& record) { return eventThreads_.of(record); });
  nextTimingBatch_ = timing.timingPeriodNs > 0 ? jfr::Recording::now() + timing.timingPeriodNs : INT64_MAX;
}

void TargetOutput::note(const char* level, const std::string& text) { out_->note(jfr::Recording::now(), level, text); }

void TargetOutput::addJvm(JvmConnection& jvm) {
  jvms_.add(jvm);
  stacks_.setJavaModel(jvm.pid(), &jvm.model());
  if (timing_) timing_->addJvm(jvm.pid(), jvm.model());
  if (agentEvents_) agentEvents_->addJvm(jvm.pid(), jvm.model());
}

void TargetOutput::endTarget(jfr::Ticks now, pid_t pid, const ThreadCpuTimes& end) {
  jvms_.nameThreads(threads_);  // threads first seen here get their Java names too
  cpuTimes_.write(now, pid, end);
}

void TargetOutput::forgetProcess(pid_t pid) {
  retryWaitingSamples(jfr::Recording::now(), /*all=*/true);
  stacks_.forgetProcess(pid);
}

void TargetOutput::writeMethodTimings(jfr::Ticks now) {
  timing_->writeTimings(now, [this](uint32_t slot) { return jvms_.timingStats(slot); });
}

void TargetOutput::addCountsTo(RecordSummary& summary) const {
  summary.javaFramesDropped += javaFramesDropped_;
  summary.samples += samples();
  summary.offCpuSamples += offCpuSamples_.load(std::memory_order_relaxed);
  summary.offCpuNs += offCpuNs_.load(std::memory_order_relaxed);
  summary.virtualThreadWaits += virtualWaits_.load(std::memory_order_relaxed);
  summary.virtualThreadWaitNs += virtualWaitNs_.load(std::memory_order_relaxed);
  summary.offCpuLost += ledger_.offCpuLost();
  summary.sampledCpuNs += cpuNs_.load(std::memory_order_relaxed);
  summary.failedStacks += failed_.load(std::memory_order_relaxed);
  summary.lost += ledger_.attributed();  // the unattributed ones once, by the pipeline
  summary.threads += threads_.everSeen();
  for (const auto& [cause, count] : ledger_.byCause()) summary.lostByCause[cause] += count;
  summary.truncatedStacks += truncations_.truncated();
  for (size_t i = 0; i < static_cast<size_t>(StackEnd::kCount); ++i) {
    auto end = static_cast<StackEnd>(i);
    if (end != StackEnd::kRoot && truncations_.samples(end) > 0) {
      summary.truncatedByCause[std::string(stackEndCause(end))] += truncations_.samples(end);
    }
  }
  if (agentEvents_) {
    summary.allocationSamples += agentEvents_->allocations().events;
    summary.allocatedBytes += agentEvents_->allocations().amount;
    summary.monitorEnters += agentEvents_->monitorEnters().events;
    summary.monitorEnterNs += agentEvents_->monitorEnters().amount;
    summary.monitorWaits += agentEvents_->monitorWaits().events;
    summary.monitorWaitNs += agentEvents_->monitorWaits().amount;
    summary.parks += agentEvents_->parks().events;
    summary.parkNs += agentEvents_->parks().amount;
  }
  if (timing_) {
    summary.timedMethods += timing_->timedMethodsWritten();
    summary.timedInvocations += timing_->invocationsWritten();
    summary.tracesWritten += timing_->traceCounters().written;
    summary.tracesUnknown += timing_->traceCounters().unknownMethod;
  }
}

void TargetOutput::serviceJvms(jfr::Ticks now) {
  for (const auto& [pid, why] : jvms_.service(now)) dropJavaFrames(pid, now, why);
  writeVirtualThreadWaits();
  if (!waitingSamples_.empty()) retryWaitingSamples(now, /*all=*/false);
}

bool TargetOutput::dropJavaFrames(pid_t pid, jfr::Ticks now, const std::string& why) {
  if (!jvms_.has(pid)) return false;
  retryWaitingSamples(now, /*all=*/true);  // with the model they waited for, while it is there
  stacks_.dropJavaFrames(pid);
  jvms_.dropJavaFrames(pid, why);
  ++javaFramesDropped_;
  warnUser(*out_, now, "JVM " + std::to_string(pid) + ": Java frames dropped, native frames go on: " + why);
  return true;
}

std::vector<std::pair<pid_t, size_t>> TargetOutput::heldBytes() const {
  std::vector<std::pair<pid_t, size_t>> held = jvms_.modelBytes();
  for (auto& [pid, bytes] : held) {
    bytes += waitingSamples_.bytesOf(pid);
    if (timing_) bytes += timing_->pendingBytesOf(pid);
    if (agentEvents_) bytes += agentEvents_->pendingBytesOf(pid);
  }
  return held;
}

void TargetOutput::onSample(const jfrbpf_sample_record& record) {
  ResolvedStack stack = stacks_.resolve(record);
  const size_t size = JFRBPF_SAMPLE_RECORD_SIZE(record.user_depth, record.kernel_depth);
  if (!stack.complete && waitingSamples_.hasRoom(size)) {
    waitingSamples_.keep(&record, size, jfr::Recording::now(), static_cast<pid_t>(record.tgid));
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
  // A virtual thread's sample is its own, as the JDK writes it, and the carrier is not named.
  const ResolvedStack written = eventThreads_.ownStack(record, stack);
  truncations_.count(written.end, count);
  if (written.truncated() && printTruncatedWalks_) printTruncatedWalk(record, written.end);
  out_->cpuSample(static_cast<jfr::Ticks>(record.time_ns), written.frames, written.truncated(), eventThreads_.of(record),
                  failed, each, count);
  samples_.fetch_add(count, std::memory_order_relaxed);
  cpuNs_.fetch_add(static_cast<uint64_t>(each) * count, std::memory_order_relaxed);
  if (failed) failed_.fetch_add(count, std::memory_order_relaxed);
}

void TargetOutput::writeOffCpuSample(const jfrbpf_sample_record& record, const ResolvedStack& stack) {
  // A carrier that waits with a virtual thread mounted (pinned, or preempted while it ran) waits for it.
  const ResolvedStack written = eventThreads_.ownStack(record, stack);
  truncations_.count(written.end);
  const auto weight = static_cast<jfr::Ticks>(record.cpu_time_ns);
  out_->offCpuSample(static_cast<jfr::Ticks>(record.time_ns), static_cast<jfr::Ticks>(record.off_cpu_ns),
                     eventThreads_.of(record), written.frames, written.truncated(), weight,
                     offCpuStateName(record.off_cpu_state), static_cast<jfr::Ticks>(record.run_delay_ns));
  offCpuSamples_.fetch_add(1, std::memory_order_relaxed);
  offCpuNs_.fetch_add(static_cast<uint64_t>(weight), std::memory_order_relaxed);
}

void TargetOutput::writeVirtualThreadWaits() {
  jvms_.takeVirtualThreadWaits([this](pid_t pid, jvm::JavaModel::VirtualThreadWaitInfo& wait) {
    const StackEnd end = (wait.flags & protocol::kWaitStackNotTaken) != 0   ? StackEnd::kNotTaken
                         : (wait.flags & protocol::kWaitStackTruncated) != 0 ? StackEnd::kDepthLimit
                                                                              : StackEnd::kRoot;
    const ResolvedStack stack = stacks_.jvmWalkedStack(pid, wait.frames, wait.startTicks, end);
    truncations_.count(stack.end);
    // Thread.yield unmounts too: a virtual thread that yielded waits for a carrier, as a preempted thread
    // waits for a CPU.
    const jvm::JavaModel* model = stacks_.javaModel(pid);
    const jvm::JavaMethod* site = model != nullptr && !wait.frames.empty()
                                      ? model->methods().byId(wait.frames.front().first, wait.startTicks)
                                      : nullptr;
    const std::string_view state = site != nullptr && site->name == "tryYield" ? "yielded" : "parked";
    // The JVM names virtual threads to the agent only here: from now on, the thread's events carry it.
    if (!wait.name.empty()) out_->nameVirtualThread(wait.threadId, wait.name);
    out_->offCpuSample(static_cast<jfr::Ticks>(wait.startTicks), static_cast<jfr::Ticks>(wait.durationNs),
                       jfr::EventThread::virtualThread(wait.threadId), stack.frames, stack.truncated(),
                       static_cast<jfr::Ticks>(wait.weightNs), state, 0);
    offCpuSamples_.fetch_add(1, std::memory_order_relaxed);
    offCpuNs_.fetch_add(wait.weightNs, std::memory_order_relaxed);
    virtualWaits_.fetch_add(1, std::memory_order_relaxed);
    virtualWaitNs_.fetch_add(wait.weightNs, std::memory_order_relaxed);
  });
}

void TargetOutput::onTrace(const void* data, size_t size) {
  jfrbpf_trace_head head{};
  if (size >= sizeof head) std::memcpy(&head, data, sizeof head);
  if (AgentEventWriter::takes(head.hook_index)) {
    if (agentEvents_) agentEvents_->onRecord(data, size);
  } else if (timing_) {
    timing_->onTrace(data, size);
  }
}

void TargetOutput::afterTraces() {
  if (timing_) timing_->retryPending();
  if (agentEvents_) agentEvents_->retryPending();
}

void TargetOutput::flushIfDue(jfr::Ticks now) {
  if (!out_->chunkDue(now)) return;
  serviceJvms(now);
  jvms_.nameThreads(threads_);
  out_->rotateIfDue(now);
}

void TargetOutput::periodicWork(jfr::Ticks now, const std::vector<ThreadLoss>& losses) {
  jvms_.nameThreads(threads_);
  ledger_.reportThreadLosses(now, losses);
  truncations_.report(now);
  if (timing_) {
    jvms_.reportInstrumentation(now);
    if (now >= nextTimingBatch_) {
      writeMethodTimings(now);
      nextTimingBatch_ = now + timingOptions_.timingPeriodNs;
    }
  }
}

void TargetOutput::continueInNextFile(jfr::Ticks now) {
  truncations_.report(now);
  jvms_.nameThreads(threads_);
  cpuTimes_.endFile(now);
  if (timing_) writeMethodTimings(now);  // JFR's endChunk values, cumulative, so that each file has them
  files_.nextFile(now);
}

void TargetOutput::reportUnattributed(jfr::Ticks now, const char* cause, uint64_t count) {
  ledger_.reportUnattributed(now, cause, count);
}

void TargetOutput::samplingPeriodChanged(jfr::Ticks now, int64_t periodNs, const std::string& why) {
  periodNs_ = periodNs;
  for (const jfr::Setting& setting : samplingPeriodSettings(out_->sampleEvents(), periodNs)) out_->changeSetting(setting);
  out_->note(now, "info", why);
}

void TargetOutput::finish(jfr::Ticks now, bool finalTraces) {
  serviceJvms(now);  // the agents' last records first: they may name what waiting samples ran
  retryWaitingSamples(now, /*all=*/true);
  truncations_.report(now);
  if (timing_ && finalTraces) timing_->retryPending(/*final=*/true);
  if (agentEvents_) agentEvents_->retryPending(/*final=*/true);
  jvms_.nameThreads(threads_);
  if (timing_) writeMethodTimings(now);  // JFR's endChunk: the recording's last chunk ends here
  out_->close();
  files_.checkComplete();
}

}  // namespace jfrbpf::record
