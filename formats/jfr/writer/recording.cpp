#include "formats/jfr/writer/recording.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "formats/jfr/writer/byte_buffer.h"
#include "formats/jfr/writer/chunk.h"
#include "formats/jfr/writer/clock.h"
#include "formats/jfr/writer/constant_pools.h"
#include "formats/jfr/writer/description_events.h"
#include "formats/jfr/writer/metadata_schema.h"
#include "formats/jfr/writer/output_file.h"
#include "formats/jfr/writer/system_info.h"
#include "formats/jfr/writer/type_ids.h"

namespace jfrbpf::jfr {
namespace {

constexpr size_t kMaxReservedChunkBytes = 64u << 20;

int64_t localGmtOffsetMillis() {
  time_t now = time(nullptr);
  tm local{};
  if (localtime_r(&now, &local) == nullptr) return 0;
  return static_cast<int64_t>(local.tm_gmtoff) * 1000;
}

std::vector<std::pair<TypeId, Setting>> resolveSettings(const std::vector<Setting>& settings) {
  std::vector<std::pair<TypeId, Setting>> resolved;
  for (const Setting& setting : settings) {
    auto type = eventTypeByName(setting.eventName);
    if (!type)
      throw Error("unknown event type '" + setting.eventName + "' in setting " + setting.eventName + "#" +
                  setting.name + "=" + setting.value + " (use a jdk.* or jfrbpf.* event this writer records)");
    resolved.emplace_back(*type, setting);
  }
  return resolved;
}

}  // namespace

struct Recording::State {
  explicit State(RecordingOptions opts)
      : options(std::move(opts)),
        settings(resolveSettings(options.settings)),
        schema(buildMetadataSchema(localGmtOffsetMillis())),
        system(readSystemInfo()),
        recordingStartMillis(readClock(CLOCK_REALTIME) / 1'000'000),
        file(std::make_unique<OutputFile>(options.path, options.owner)),
        chunk(std::min<size_t>(options.maxChunkBytes, kMaxReservedChunkBytes) + 65536) {
    internUnknownMethod();
    for (const auto& [type, setting] : settings)
      if (setting.name == "enabled") callerEnabledTypes |= eventBit(type);
    updateChunkOverhead();
    chunk.start(readClockPair());
  }

  void internUnknownMethod() {
    unknownMethod =
        pools.internMethod(pools.internClass("[unknown]", 0, false), "[unknown]", kNativeMethodDescriptor, 0, false);
  }

  // Besides events and pools, every chunk carries its header, the metadata and the description events.
  void updateChunkOverhead() {
    constexpr uint64_t kPerRecord = 64;
    chunkOverhead = kChunkHeaderBytes + schema.body.size() + kPerRecord + options.name.size() + options.path.size() +
                    kPerRecord + system.osVersion.size() + kPerRecord + system.cpu.size() +
                    system.cpuDescription.size() + kPerRecord * (kLastEventType - kFirstEventType + 1);
    for (const auto& [type, setting] : settings)
      chunkOverhead += kPerRecord + setting.name.size() + setting.value.size();
    if (const auto& jvm = options.jvm)
      chunkOverhead += kPerRecord + jvm->jvmName.size() + jvm->jvmVersion.size() + jvm->jvmArguments.size() +
                       jvm->jvmFlags.size() + jvm->javaArguments.size();
  }

  uint64_t threadKey(ThreadId thread) { return pools.isThread(thread) ? pools.markThread(thread) : 0; }
  uint64_t threadKey(EventThread thread) {
    return thread.virtualThreadId != 0 ? pools.markVirtualThread(thread.virtualThreadId) : threadKey(thread.thread);
  }
  MethodId methodKey(MethodId method) {
    MethodId valid = pools.isMethod(method) ? method : unknownMethod;
    pools.markMethod(valid);
    return valid;
  }
  uint64_t stackTraceKey(std::span<const StackFrame> frames, bool truncated) {
    return frames.empty() ? 0 : chunk.stackTraceKey(frames, truncated, pools, unknownMethod);
  }

  void cpuTimeSample(Ticks startTime, uint64_t stackTrace, uint64_t thread, bool failed, Ticks samplingPeriod,
                     bool biased, const TraceContext& context) {
    commitWithContext(SmallRecord(chunk.events(), kCpuTimeSampleEvent)
        .longValue(startTime)
        .varint(stackTrace)
        .varint(thread)
        .boolean(failed)
        .longValue(samplingPeriod)
        .boolean(biased),
                      context);
    recorded(kCpuTimeSampleEvent, startTime);
  }

  void executionSample(Ticks startTime, uint64_t stackTrace, uint64_t thread, const TraceContext& context) {
    commitWithContext(SmallRecord(chunk.events(), kExecutionSampleEvent)
        .longValue(startTime)
        .varint(thread)
        .varint(stackTrace)
        .varint(pools.markRunnableState()),
                      context);
    recorded(kExecutionSampleEvent, startTime);
  }

  // Events carry the context fields from the first chunk a context appears in on: the chunk before is finished
  // with the metadata its events were written by. Called before the event takes its chunk's keys.
  void prepareContext(const TraceContext& context) {
    if (contextFields || context.empty()) return;
    if (chunk.bufferedBytes() > 0) finishChunk(false);
    schema = buildMetadataSchema(localGmtOffsetMillis(), /*traceContext=*/true);
    contextFields = true;
    updateChunkOverhead();
  }
  void commitWithContext(SmallRecord& record, const TraceContext& context) {
    if (contextFields) {
      record.longValue(static_cast<int64_t>(context.traceIdHi))
          .longValue(static_cast<int64_t>(context.traceIdLo))
          .longValue(static_cast<int64_t>(context.spanId))
          .intValue(context.traceFlags)
          .pooledString(pools.markString(context.attributes))
          .pooledString(pools.markString(context.notRead))
          .longValue(contextIdOf(context.attributes));
    }
    record.commit();
  }

  void recorded(TypeId type, Ticks startTime) {
    recordedTypes |= eventBit(type);
    ++stats.events;
    chunk.observe(startTime);
    if (chunk.bufferedBytes() + pools.pendingBytes() + chunkOverhead >= options.maxChunkBytes) finishChunk(false);
  }

  // Appends the chunk to the file and, unless it is the last, starts the next one where it ended.
  std::optional<std::string> finishFile();

  void finishChunk(bool finalChunk) {
    // Every event type in use appears as enabled unless the caller said otherwise: `jfr view active-settings`
    // and JMC's rules read the settings, not the events.
    writeDescriptionEvents(chunk.events(), chunk.openedTicks(),
                           {options, settings, recordedTypes & ~callerEnabledTypes, system, recordingStartMillis});
    ClockPair closed = readClockPair();
    auto pieces = chunk.assemble(schema, pools, closed, finalChunk);
    if (auto error = file->appendChunk(pieces)) {
      if (firstWriteError.empty()) firstWriteError = *error;
      ++chunksLost;
    } else {
      ++stats.chunks;
      ++fileChunks;
      stats.bytesWritten = file->size();
      stats.stackTraces += chunk.stackTraceCount();
    }
    pools.startNextChunk();
    ++chunkSerial;
    if (!finalChunk) chunk.start(closed);
  }

  RecordingOptions options;
  std::vector<std::pair<TypeId, Setting>> settings;
  MetadataSchema schema;
  SystemInfo system;
  int64_t recordingStartMillis;
  std::unique_ptr<OutputFile> file;
  ConstantPools pools;
  Chunk chunk;
  MethodId unknownMethod = 0;
  uint32_t constantsGeneration = 0;
  uint64_t chunkSerial = 0;  // chunks finished: stack trace and constant keys are only valid within one
  uint64_t chunkOverhead = 0;
  uint32_t recordedTypes = 0;       // eventBit() of every event type recorded so far
  uint32_t callerEnabledTypes = 0;  // eventBit() of event types with an "enabled" setting from the caller
  Stats stats{};
  std::string firstWriteError;
  uint64_t chunksLost = 0;  // of the current file
  uint64_t fileChunks = 0;  // written to the current file
  bool contextFields = false;  // the metadata declares the context fields, and events write them
  bool closed = false;
};

Recording::Recording(RecordingOptions options) {
  if (options.maxChunkBytes == 0) throw Error("maxChunkBytes must be positive (JFR's default is 12 MiB)");
  state_ = std::make_unique<State>(std::move(options));
}

Recording::~Recording() {
  try {
    close();
  } catch (const std::exception& e) {
    // Nobody is left to tell but the user: the recording's fate must not vanish silently.
    std::fprintf(stderr, "jfrbpf: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "jfrbpf: finishing the recording failed\n");
  }
}

ClassId Recording::internClass(std::string_view internalName, int32_t modifiers, bool hidden) {
  return state_->pools.internClass(internalName, modifiers, hidden);
}

MethodId Recording::internMethod(ClassId type, std::string_view name, std::string_view descriptor, int32_t modifiers,
                                 bool hidden) {
  return state_->pools.internMethod(type, name, descriptor, modifiers, hidden);
}

ThreadId Recording::internThread(const ThreadInfo& info) { return state_->pools.internThread(info); }

void Recording::updateThread(ThreadId thread, const ThreadInfo& info) { state_->pools.updateThread(thread, info); }

void Recording::nameVirtualThread(int64_t javaThreadId, std::string_view name) {
  state_->pools.nameVirtualThread(javaThreadId, name);
}

void Recording::setJvmInformation(JvmInformation jvm) {
  state_->options.jvm = std::move(jvm);
  state_->updateChunkOverhead();
}

void Recording::setProcessResource(ProcessResource resource) {
  state_->options.resource = std::move(resource);
  state_->updateChunkOverhead();
}

void Recording::cpuTimeSample(Ticks startTime, std::span<const StackFrame> frames, bool truncated, EventThread thread,
                              bool failed, Ticks samplingPeriod, bool biased, const TraceContext& context) {
  State& s = *state_;
  if (s.closed) return;
  s.prepareContext(context);
  s.cpuTimeSample(startTime, s.stackTraceKey(frames, truncated), s.threadKey(thread), failed, samplingPeriod, biased,
                  context);
}

void Recording::executionSample(Ticks startTime, std::span<const StackFrame> frames, bool truncated,
                                EventThread thread, const TraceContext& context) {
  State& s = *state_;
  if (s.closed) return;
  s.prepareContext(context);
  s.executionSample(startTime, s.stackTraceKey(frames, truncated), s.threadKey(thread), context);
}

void Recording::cpuSample(Ticks startTime, std::span<const StackFrame> frames, bool truncated, EventThread thread,
                          bool failed, Ticks samplingPeriod, uint32_t count, const TraceContext& context) {
  State& s = *state_;
  if (s.closed) return;
  s.prepareContext(context);
  // The stack is looked up once for all the events, unless a chunk ends between them (keys are per chunk).
  uint64_t chunk = s.chunkSerial;
  uint64_t stackTrace = s.stackTraceKey(frames, truncated);
  auto keyNow = [&] {
    if (s.chunkSerial != chunk) {
      chunk = s.chunkSerial;
      stackTrace = s.stackTraceKey(frames, truncated);
    }
    return stackTrace;
  };
  const SampleEvents events = s.options.sampleEvents;
  for (uint32_t i = 0; i < count; ++i) {
    if (events != SampleEvents::kExecution) {
      s.cpuTimeSample(startTime, keyNow(), s.threadKey(thread), failed, samplingPeriod, /*biased=*/false, context);
    }
    if (events != SampleEvents::kCpuTime) s.executionSample(startTime, keyNow(), s.threadKey(thread), context);
  }
}

void Recording::cpuTimeSamplesLost(Ticks startTime, int32_t lostSamples, ThreadId thread) {
  State& s = *state_;
  if (s.closed) return;
  SmallRecord(s.chunk.events(), kCpuTimeSamplesLostEvent)
      .longValue(startTime)
      .intValue(lostSamples)
      .varint(s.threadKey(thread))
      .commit();
  s.recorded(kCpuTimeSamplesLostEvent, startTime);
}

void Recording::methodTiming(Ticks startTime, MethodId method, int64_t invocations, int64_t minimum, int64_t average,
                             int64_t maximum) {
  State& s = *state_;
  if (s.closed) return;
  SmallRecord(s.chunk.events(), kMethodTimingEvent)
      .longValue(startTime)
      .varint(s.methodKey(method))
      .longValue(invocations)
      .longValue(minimum)
      .longValue(average)
      .longValue(maximum)
      .commit();
  s.recorded(kMethodTimingEvent, startTime);
}

void Recording::methodTrace(Ticks startTime, Ticks duration, EventThread thread, std::span<const StackFrame> frames,
                            bool truncated, MethodId method, const TraceContext& context) {
  State& s = *state_;
  if (s.closed) return;
  s.prepareContext(context);
  uint64_t stackTrace = s.stackTraceKey(frames, truncated);
  s.commitWithContext(SmallRecord(s.chunk.events(), kMethodTraceEvent)
      .longValue(startTime)
      .longValue(duration)
      .varint(s.threadKey(thread))
      .varint(stackTrace)
      .varint(s.methodKey(method)),
                      context);
  s.chunk.observe(startTime + std::max<Ticks>(duration, 0));
  s.recorded(kMethodTraceEvent, startTime);
}

void Recording::objectAllocationSample(Ticks startTime, EventThread thread, std::span<const StackFrame> frames,
                                       bool truncated, ClassId objectClass, int64_t weight,
                                       const TraceContext& context) {
  State& s = *state_;
  if (s.closed) return;
  s.prepareContext(context);
  uint64_t stackTrace = s.stackTraceKey(frames, truncated);
  s.commitWithContext(SmallRecord(s.chunk.events(), kObjectAllocationSampleEvent)
      .longValue(startTime)
      .varint(s.threadKey(thread))
      .varint(stackTrace)
      .varint(s.pools.isClass(objectClass) ? s.pools.markClassKey(objectClass) : 0)
      .longValue(weight),
                      context);
  s.recorded(kObjectAllocationSampleEvent, startTime);
}

void Recording::javaMonitorEnter(Ticks startTime, Ticks duration, EventThread thread,
                                 std::span<const StackFrame> frames, bool truncated, ClassId monitorClass,
                                 uint64_t address, const TraceContext& context) {
  State& s = *state_;
  if (s.closed) return;
  s.prepareContext(context);
  uint64_t stackTrace = s.stackTraceKey(frames, truncated);
  s.commitWithContext(SmallRecord(s.chunk.events(), kJavaMonitorEnterEvent)
      .longValue(startTime)
      .longValue(duration)
      .varint(s.threadKey(thread))
      .varint(stackTrace)
      .varint(s.pools.isClass(monitorClass) ? s.pools.markClassKey(monitorClass) : 0)
      .varint(0)  // previousOwner: unknown
      .longValue(static_cast<int64_t>(address)),
                      context);
  s.chunk.observe(startTime + std::max<Ticks>(duration, 0));
  s.recorded(kJavaMonitorEnterEvent, startTime);
}

void Recording::javaMonitorWait(Ticks startTime, Ticks duration, EventThread thread,
                                std::span<const StackFrame> frames, bool truncated, ClassId monitorClass,
                                int64_t timeoutMillis, bool timedOut, uint64_t address,
                                const TraceContext& context) {
  State& s = *state_;
  if (s.closed) return;
  s.prepareContext(context);
  uint64_t stackTrace = s.stackTraceKey(frames, truncated);
  s.commitWithContext(SmallRecord(s.chunk.events(), kJavaMonitorWaitEvent)
      .longValue(startTime)
      .longValue(duration)
      .varint(s.threadKey(thread))
      .varint(stackTrace)
      .varint(s.pools.isClass(monitorClass) ? s.pools.markClassKey(monitorClass) : 0)
      .varint(0)  // notifier: unknown
      .longValue(timeoutMillis)
      .boolean(timedOut)
      .longValue(static_cast<int64_t>(address)),
                      context);
  s.chunk.observe(startTime + std::max<Ticks>(duration, 0));
  s.recorded(kJavaMonitorWaitEvent, startTime);
}

void Recording::threadPark(Ticks startTime, Ticks duration, EventThread thread, std::span<const StackFrame> frames,
                           bool truncated, ClassId parkedClass, int64_t timeoutNanos, int64_t untilMillis,
                           uint64_t address, const TraceContext& context) {
  State& s = *state_;
  if (s.closed) return;
  s.prepareContext(context);
  uint64_t stackTrace = s.stackTraceKey(frames, truncated);
  s.commitWithContext(SmallRecord(s.chunk.events(), kThreadParkEvent)
      .longValue(startTime)
      .longValue(duration)
      .varint(s.threadKey(thread))
      .varint(stackTrace)
      .varint(s.pools.isClass(parkedClass) ? s.pools.markClassKey(parkedClass) : 0)
      .longValue(timeoutNanos)
      .longValue(untilMillis)
      .longValue(static_cast<int64_t>(address)),
                      context);
  s.chunk.observe(startTime + std::max<Ticks>(duration, 0));
  s.recorded(kThreadParkEvent, startTime);
}

void Recording::sampleLoss(Ticks startTime, ThreadId thread, std::string_view cause, int64_t lostSamples,
                           Ticks lostCpuTime) {
  State& s = *state_;
  if (s.closed) return;
  ByteBuffer& out = s.chunk.events();
  size_t record = out.beginRecord();
  out.putVarint(kSampleLossEvent);
  out.putLong(startTime);
  out.putVarint(s.threadKey(thread));
  out.putString(cause);
  out.putLong(lostSamples);
  out.putLong(lostCpuTime);
  out.endRecord(record);
  s.recorded(kSampleLossEvent, startTime);
}

void Recording::note(Ticks startTime, std::string_view severity, std::string_view message) {
  State& s = *state_;
  if (s.closed) return;
  ByteBuffer& out = s.chunk.events();
  size_t record = out.beginRecord();
  out.putVarint(kNoteEvent);
  out.putLong(startTime);
  out.putString(severity);
  out.putString(message);
  out.endRecord(record);
  s.recorded(kNoteEvent, startTime);
}

void Recording::processContext(Ticks startTime, int64_t pid, std::string_view serviceName,
                               std::string_view resource, std::string_view attributes,
                               std::string_view threadContext) {
  State& s = *state_;
  if (s.closed) return;
  ByteBuffer& out = s.chunk.events();
  size_t record = out.beginRecord();
  out.putVarint(kProcessContextEvent);
  out.putLong(startTime);
  out.putLong(pid);
  out.putString(serviceName);
  out.putString(resource);
  out.putString(attributes);
  out.putString(threadContext);
  out.endRecord(record);
  s.recorded(kProcessContextEvent, startTime);
}

void Recording::truncatedStacks(Ticks startTime, std::string_view cause, int64_t samples) {
  State& s = *state_;
  if (s.closed) return;
  ByteBuffer& out = s.chunk.events();
  size_t record = out.beginRecord();
  out.putVarint(kTruncatedStacksEvent);
  out.putLong(startTime);
  out.putString(cause);
  out.putLong(samples);
  out.endRecord(record);
  s.recorded(kTruncatedStacksEvent, startTime);
}

void Recording::threadCpuTime(Ticks startTime, ThreadId thread, Ticks cpuTime, Ticks wallTime, Ticks runDelay) {
  State& s = *state_;
  if (s.closed) return;
  ByteBuffer& out = s.chunk.events();
  size_t record = out.beginRecord();
  out.putVarint(kThreadCpuTimeEvent);
  out.putLong(startTime);
  out.putVarint(s.threadKey(thread));
  out.putLong(cpuTime);
  out.putLong(wallTime);
  out.putLong(runDelay);
  out.endRecord(record);
  s.recorded(kThreadCpuTimeEvent, startTime);
}

void Recording::offCpuSample(Ticks startTime, Ticks duration, EventThread thread, std::span<const StackFrame> frames,
                             bool truncated, Ticks weight, std::string_view state, Ticks runDelay,
                             const TraceContext& context) {
  State& s = *state_;
  if (s.closed) return;
  s.prepareContext(context);
  uint64_t stackTrace = s.stackTraceKey(frames, truncated);
  s.commitWithContext(SmallRecord(s.chunk.events(), kOffCpuSampleEvent)
                          .longValue(startTime)
                          .longValue(duration)
                          .varint(s.threadKey(thread))
                          .varint(stackTrace)
                          .longValue(weight)
                          .pooledString(s.pools.markString(state))
                          .longValue(runDelay),
                      context);
  s.chunk.observe(startTime + std::max<Ticks>(duration, 0));
  s.recorded(kOffCpuSampleEvent, startTime);
}

void Recording::offCpuSamplesLost(Ticks startTime, ThreadId thread, int64_t lostSamples, Ticks lostTime) {
  State& s = *state_;
  if (s.closed) return;
  ByteBuffer& out = s.chunk.events();
  size_t record = out.beginRecord();
  out.putVarint(kOffCpuSamplesLostEvent);
  out.putLong(startTime);
  out.putVarint(s.threadKey(thread));
  out.putLong(lostSamples);
  out.putLong(lostTime);
  out.endRecord(record);
  s.recorded(kOffCpuSamplesLostEvent, startTime);
}

SampleEvents Recording::sampleEvents() const { return state_->options.sampleEvents; }

void Recording::changeSetting(const Setting& setting) {
  State& s = *state_;
  auto resolved = resolveSettings({setting}).front();
  auto same = std::find_if(s.settings.begin(), s.settings.end(), [&](const auto& existing) {
    return existing.first == resolved.first && existing.second.name == setting.name;
  });
  if (same != s.settings.end()) {
    same->second.value = setting.value;
  } else {
    s.settings.push_back(std::move(resolved));
  }
  s.updateChunkOverhead();
}

bool Recording::chunkDue(Ticks now) const {
  const State& s = *state_;
  return !s.closed && s.options.maxChunkAge > 0 && now - s.chunk.openedTicks() >= s.options.maxChunkAge;
}

void Recording::rotateIfDue(Ticks now) {
  if (chunkDue(now)) state_->finishChunk(false);
}

void Recording::rotate() {
  if (!state_->closed) state_->finishChunk(false);
}

// The file's last chunk, then the file into place; what went wrong with it, as close() reports it.
std::optional<std::string> Recording::State::finishFile() {
  finishChunk(true);
  const std::string& path = file->destination();
  const std::string fix = " (free disk space or choose another output path)";
  if (file->size() == 0) {
    file->discard();
    return "nothing could be written to recording '" + path + "': " + firstWriteError + fix;
  }
  try {
    file->commit();
  } catch (const Error& e) {
    return e.what();
  }
  if (chunksLost > 0)
    return "recording '" + path + "' is missing " + std::to_string(chunksLost) + " of " +
           std::to_string(chunksLost + fileChunks) + " chunks: " + firstWriteError + fix;
  return std::nullopt;
}

std::optional<std::string> Recording::continueIn(const std::string& path) {
  State& s = *state_;
  if (s.closed) return std::nullopt;
  std::unique_ptr<OutputFile> next;
  try {
    next = std::make_unique<OutputFile>(path, s.options.owner);
  } catch (const Error& e) {
    return e.what();  // the current file goes on
  }
  std::optional<std::string> error = s.finishFile();
  s.pools.forgetAll();
  s.internUnknownMethod();
  ++s.constantsGeneration;
  s.file = std::move(next);
  s.options.path = path;
  s.firstWriteError.clear();
  s.chunksLost = 0;
  s.fileChunks = 0;
  s.stats.bytesWritten = 0;
  s.updateChunkOverhead();
  s.chunk.start(readClockPair());
  return error;
}

void Recording::close() {
  State& s = *state_;
  if (s.closed) return;
  s.closed = true;
  if (std::optional<std::string> error = s.finishFile()) throw Error(*error);
}

void Recording::abandon() noexcept {
  State& s = *state_;
  if (s.closed) return;
  s.closed = true;
  s.file->discard();
}

const std::string& Recording::path() const { return state_->options.path; }

Recording::WrittenPart Recording::writtenPart() const {
  return {state_->file->temporaryPath(), state_->file->size()};
}

Recording::Memory Recording::memory() const {
  return {state_->chunk.memoryBytes() + state_->pools.memoryBytes(), state_->chunk.unwrittenBytes()};
}

Recording::Stats Recording::stats() const { return state_->stats; }

uint32_t Recording::constantsGeneration() const { return state_->constantsGeneration; }

Ticks Recording::now() { return monotonicNow(); }

}  // namespace jfrbpf::jfr
