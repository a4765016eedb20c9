#include "tests/support/recorded_samples.h"

#include "formats/jfr/reader/recording.h"

namespace jfrbpf::test {

using namespace jfrbpf::jfr::reader;

namespace {

// The event's stack trace into `frames`; returns whether it is truncated.
bool readStack(const RecordedEvent& event, std::vector<SampleFrame>& frames) {
  StackTraceView trace(event.get("stackTrace"));
  for (const Frame& f : trace.frames()) {
    frames.push_back({std::string(f.className), std::string(f.methodName), std::string(f.type), f.lineNumber});
  }
  return trace.present() && trace.truncated();
}

EventContext readContext(const RecordedEvent& event) {
  EventContext context;
  context.traceIdHi = static_cast<uint64_t>(event.getLong("traceIdHi"));
  context.traceIdLo = static_cast<uint64_t>(event.getLong("traceIdLo"));
  context.spanId = static_cast<uint64_t>(event.getLong("spanId"));
  context.traceFlags = event.getLong("traceFlags");
  context.attributes = std::string(event.getString("contextAttributes"));
  context.notRead = std::string(event.getString("contextNotRead"));
  return context;
}

}  // namespace

Recorded readRecording(const std::string& path) {
  Recorded out;
  Recording recording = Recording::open(path);
  out.chunks = recording.chunks().size();
  FieldKey failed("failed"), period("samplingPeriod"), lost("lostSamples"), cause("cause"), message("message");
  FieldKey lostCpu("lostCpuTime");
  recording.forEachEvent([&](const RecordedEvent& event) {
    const std::string& type = event.type().name;
    if (type == "jdk.CPUTimeSample") {
      Sample sample;
      if (auto thread = threadOf(event)) {
        sample.osThreadId = thread->osThreadId;
        sample.threadName = std::string(thread->osName);
        sample.javaThreadName = std::string(thread->javaName);
      }
      sample.failed = failed.of(event).asBool();
      sample.samplingPeriod = period.of(event).asLong();
      out.cpuNsByThread[sample.osThreadId] += sample.samplingPeriod;
      sample.truncated = readStack(event, sample.frames);
      sample.context = readContext(event);
      out.samples.push_back(std::move(sample));
    } else if (type == "jfrbpf.OffCPUSample") {
      OffCpuSample wait;
      if (auto thread = threadOf(event)) {
        wait.osThreadId = thread->osThreadId;
        wait.threadName = std::string(thread->osName);
        wait.javaThreadId = thread->javaThreadId;
        wait.virtualThread = thread->virtualThread;
      }
      wait.startTime = event.getLong("startTime");
      wait.duration = event.getLong("duration");
      wait.weight = event.getLong("weight");
      wait.runDelay = event.getLong("runDelay");
      wait.state = std::string(event.get("state").asString());
      wait.truncated = readStack(event, wait.frames);
      wait.context = readContext(event);
      out.offCpuSamples.push_back(std::move(wait));
    } else if (type == "jdk.ObjectAllocationSample") {
      AllocationSample allocation;
      if (auto thread = threadOf(event)) allocation.osThreadId = thread->osThreadId;
      allocation.startTime = event.getLong("startTime");
      allocation.weight = event.getLong("weight");
      if (const RecordedObject* objectClass = event.get("objectClass").asObject()) {
        allocation.objectClass = std::string(objectClass->get("name").asString());
      }
      allocation.truncated = readStack(event, allocation.frames);
      allocation.context = readContext(event);
      out.allocationSamples.push_back(std::move(allocation));
    } else if (type == "jdk.JavaMonitorEnter" || type == "jdk.JavaMonitorWait" || type == "jdk.ThreadPark") {
      LockEvent lock;
      lock.wait = type == "jdk.JavaMonitorWait";
      lock.park = type == "jdk.ThreadPark";
      if (auto thread = threadOf(event)) {
        lock.osThreadId = thread->osThreadId;
        lock.threadName = std::string(thread->osName);
      }
      lock.startTime = event.getLong("startTime");
      lock.duration = event.getLong("duration");
      if (const RecordedObject* monitorClass = event.get(lock.park ? "parkedClass" : "monitorClass").asObject()) {
        lock.monitorClass = std::string(monitorClass->get("name").asString());
      }
      if (lock.park) lock.timeout = event.getLong("timeout");
      if (lock.wait) {
        lock.timeout = event.getLong("timeout");
        lock.timedOut = event.getBool("timedOut");
      }
      lock.truncated = readStack(event, lock.frames);
      lock.context = readContext(event);
      out.lockEvents.push_back(std::move(lock));
    } else if (type == "jdk.MethodTrace") {
      MethodTraceEvent trace;
      if (auto thread = threadOf(event)) {
        trace.osThreadId = thread->osThreadId;
        trace.threadName = std::string(thread->osName);
      }
      if (const RecordedObject* method = event.get("method").asObject()) {
        trace.methodName = std::string(method->get("name").asString());
      }
      trace.duration = event.getLong("duration");
      trace.context = readContext(event);
      out.methodTraces.push_back(std::move(trace));
    } else if (type == "jfrbpf.OffCPUSamplesLost") {
      if (auto thread = threadOf(event)) out.offCpuLostNsByThread[thread->osThreadId] += event.getLong("lostTime");
    } else if (type == "jdk.CPUTimeSamplesLost") {
      int64_t count = lost.of(event).asLong();
      if (auto thread = threadOf(event)) out.lostByThread[thread->osThreadId] += count;
      out.lostTotal += count;
    } else if (type == "jfrbpf.SampleLoss") {
      out.lossCauses[std::string(cause.of(event).asString())] += lost.of(event).asLong();
      if (auto thread = threadOf(event)) out.cpuNsByThread[thread->osThreadId] += lostCpu.of(event).asLong();
    } else if (type == "jfrbpf.ThreadCPUTime") {
      if (auto thread = threadOf(event)) {
        out.kernelCpuNsByThread[thread->osThreadId] += event.getLong("cpuTime");
        out.wallNsByThread[thread->osThreadId] += event.getLong("wallTime");
        out.runDelayNsByThread[thread->osThreadId] += event.getLong("runDelay");
      }
    } else if (type == "jfrbpf.Note") {
      out.notes.emplace_back(message.of(event).asString());
    }
  });
  return out;
}

bool hasFrame(const Sample& sample, const std::string& method, const std::string& className) {
  return hasFrame(sample.frames, method, className);
}

bool hasFrame(const std::vector<SampleFrame>& frames, const std::string& method, const std::string& className) {
  for (const SampleFrame& f : frames) {
    if (f.methodName == method && (className.empty() || f.className == className)) return true;
  }
  return false;
}

}  // namespace jfrbpf::test
