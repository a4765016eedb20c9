#include "userspace/record/output/target_output.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/debug_options.h"
#include "userspace/record/user_warning.h"

namespace jfrbpf::record {
namespace {

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
                           symbolize::ProcessSymbolizer& native, int64_t periodNs, const MakeSourceWriters& writers)
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
      printTruncatedWalks_(debugOption("truncated")) {
  if (series) files_.rotateThrough(std::move(*series));
  if (writers) writers_ = writers(OutputParts{*out_, eventThreads_, jvms_, stacks_, truncations_, contexts_});
  for (const auto& writer : writers_) writerSampleFlags_ |= writer->sampleFlags();
}

void TargetOutput::note(const char* level, const std::string& text) { out_->note(jfr::Recording::now(), level, text); }

void TargetOutput::processContext(pid_t pid, const otel::ProcessContext& context, const std::string& threadsAt) {
  auto joined = [](const std::vector<otel::Attribute>& attributes) {
    std::string text;
    for (const otel::Attribute& attribute : attributes) {
      text += (text.empty() ? "" : ", ") + attribute.key + "=" + attribute.value;
    }
    return text;
  };
  std::string threadContext;
  if (!context.threadSchema.empty()) {
    threadContext = context.threadSchema + ":";
    for (size_t i = 0; i < context.threadKeys.size(); ++i) {
      threadContext += (i == 0 ? " " : ", ") + std::to_string(i) + "=" + context.threadKeys[i];
    }
    if (!context.threadKeysProblem.empty()) threadContext += " (" + context.threadKeysProblem + ")";
    if (!threadsAt.empty()) threadContext += "; " + threadsAt;
  }
  contexts_.setKeyNames(pid, context.threadKeys);
  const std::string* service = context.resourceValue("service.name");
  out_->processContext(jfr::Recording::now(), pid, service != nullptr ? *service : "", joined(context.resource),
                       joined(context.attributes), threadContext);
}

void TargetOutput::addJvm(JvmConnection& jvm) {
  jvms_.add(jvm);
  stacks_.setJavaModel(jvm.pid(), &jvm.model());
  for (const auto& writer : writers_) writer->addJvm(jvm.pid(), jvm.model());
}

void TargetOutput::endTarget(jfr::Ticks now, pid_t pid, const ThreadCpuTimes& end) {
  jvms_.nameThreads(threads_);  // threads first seen here get their Java names too
  cpuTimes_.write(now, pid, end);
}

void TargetOutput::forgetProcess(pid_t pid) {
  retryWaitingSamples(jfr::Recording::now(), /*all=*/true);
  stacks_.forgetProcess(pid);
  contexts_.forgetProcess(pid);
  jvms_.forgetProcess(pid);
}

void TargetOutput::addCountsTo(RecordSummary& summary) const {
  summary.javaFramesDropped += javaFramesDropped_;
  summary.contexts += contexts_.counts();
  summary.samples += samples();
  summary.leftOutOfContext += leftOutTotal_.load(std::memory_order_relaxed);
  summary.offCpuLost += ledger_.offCpuLost();
  summary.sampledCpuNs += cpuNs_.load(std::memory_order_relaxed);
  summary.failedStacks += failed_.load(std::memory_order_relaxed);
  summary.lost += ledger_.attributed();  // the unattributed ones once, by the pipeline
  summary.threads += threads_.everSeen();
  for (const auto& [cause, count] : ledger_.byCause()) summary.lostByCause[cause] += count;
  summary.stacks += truncations_.total();
  summary.truncatedStacks += truncations_.truncated();
  for (size_t i = 0; i < static_cast<size_t>(StackEnd::kCount); ++i) {
    auto end = static_cast<StackEnd>(i);
    if (end != StackEnd::kRoot && truncations_.samples(end) > 0) {
      summary.truncatedByCause[std::string(stackEndCause(end))] += truncations_.samples(end);
    }
  }
}

void TargetOutput::serviceJvms(jfr::Ticks now) {
  for (const auto& [pid, why] : jvms_.service(now)) dropJavaFrames(pid, now, why);
  for (const auto& writer : writers_) writer->afterAgents(now);
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
    for (const auto& writer : writers_) bytes += writer->pendingBytesOf(pid);
  }
  return held;
}

void TargetOutput::accountMemory(MemoryAccount& account) const {
  const jfr::Recording::Memory file = out_->memory();
  account.files += file.held;
  account.unwrittenChunkBytes += file.unwritten;
  account.stackCaches += stacks_.memoryBytes() + eventThreads_.memoryBytes();
  account.waiting += waitingSamples_.bytes();
  for (const auto& [pid, bytes] : jvms_.modelBytes()) {
    account.javaModels += bytes;
    ++account.jvms;
    for (const auto& writer : writers_) account.waiting += writer->pendingBytesOf(pid);
  }
}

void TargetOutput::onSample(const jfrbpf_sample_record& record) {
  ResolvedStack stack = stacks_.resolve(record);
  const size_t size = JFRBPF_SAMPLE_RECORD_SIZE(record.user_depth, record.kernel_depth, record.context_size);
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
  if ((record.flags & writerSampleFlags_) != 0) {
    for (const auto& writer : writers_) {
      if ((record.flags & writer->sampleFlags()) != 0) return writer->writeSample(record, stack);
    }
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
  const jfr::TraceContext context = contexts_.of(record);
  if (!kept(context)) {
    LeftOut& left = leftOut_[eventThreads_.osThreadOf(record)];
    left.samples += count;
    left.cpuNs += static_cast<uint64_t>(each) * count;
    leftOutTotal_.fetch_add(count, std::memory_order_relaxed);
    return;
  }
  out_->cpuSample(static_cast<jfr::Ticks>(record.time_ns), written.frames, written.truncated(), eventThreads_.of(record),
                  failed, each, count, context);
  samples_.fetch_add(count, std::memory_order_relaxed);
  cpuNs_.fetch_add(static_cast<uint64_t>(each) * count, std::memory_order_relaxed);
  if (failed) failed_.fetch_add(count, std::memory_order_relaxed);
}

void TargetOutput::reportLeftOut(jfr::Ticks now) {
  for (const auto& [thread, left] : leftOut_) {
    out_->sampleLoss(now, thread, kCauseLeftOutOfContext, static_cast<int64_t>(left.samples),
                     static_cast<jfr::Ticks>(left.cpuNs));
  }
  leftOut_.clear();
}

bool TargetOutput::kept(const jfr::TraceContext& context) const {
  switch (contextOnly_) {
    case ContextOnly::kOff: return true;
    case ContextOnly::kInContext: return context.traceIdHi != 0 || context.traceIdLo != 0 || context.spanId != 0 ||
                                         !context.attributes.empty();
    case ContextOnly::kSampledTrace: return (context.traceFlags & 1) != 0;
  }
  return true;
}

void TargetOutput::onTrace(const void* data, size_t size) {
  jfrbpf_trace_head head{};
  if (size >= sizeof head) std::memcpy(&head, data, sizeof head);
  for (const auto& writer : writers_) {
    if (writer->takesTrace(head.hook_index)) return writer->onTrace(data, size);
  }
}

void TargetOutput::afterTraces() {
  for (const auto& writer : writers_) writer->afterTraces();
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
  reportLeftOut(now);
  truncations_.report(now);
  for (const auto& writer : writers_) writer->periodicWork(now);
}

void TargetOutput::continueInNextFile(jfr::Ticks now) {
  truncations_.report(now);
  reportLeftOut(now);
  jvms_.nameThreads(threads_);
  cpuTimes_.endFile(now);
  for (const auto& writer : writers_) writer->endFile(now);
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
  for (const auto& writer : writers_) writer->drain(finalTraces);
  truncations_.report(now);
  reportLeftOut(now);
  jvms_.nameThreads(threads_);
  for (const auto& writer : writers_) writer->endFile(now);  // the recording's last chunk ends here
  out_->close();
  files_.finished();  // whole, whatever became of an earlier file of the series
  files_.checkComplete();
}

}  // namespace jfrbpf::record
