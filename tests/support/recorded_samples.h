#pragma once
// Test helper: the CPU samples of a recording, read with the project's reader, in plain values that
// outlive the recording.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace jfrbpf::test {

struct SampleFrame {
  std::string className;
  std::string methodName;
  std::string type;
  int32_t line = -1;
};

// The OpenTelemetry context fields an event carries (all zero and empty where the file has none).
struct EventContext {
  uint64_t traceIdHi = 0, traceIdLo = 0, spanId = 0;
  int64_t traceFlags = 0;
  std::string attributes;
  std::string notRead;

  bool none() const { return traceIdHi == 0 && traceIdLo == 0 && spanId == 0 && attributes.empty() && notRead.empty(); }
};

struct Sample {
  int64_t osThreadId = 0;
  std::string threadName;      // OS name
  std::string javaThreadName;  // "" for non-Java threads
  bool failed = false;
  bool truncated = false;
  int64_t samplingPeriod = 0;
  std::vector<SampleFrame> frames;  // leaf first
  EventContext context;
};

// A jfrbpf.OffCPUSample.
struct OffCpuSample {
  int64_t osThreadId = 0;
  std::string threadName;  // OS name
  int64_t javaThreadId = 0;
  bool virtualThread = false;
  int64_t startTime = 0;  // ticks
  int64_t duration = 0;
  int64_t weight = 0;
  int64_t runDelay = 0;
  std::string state;
  bool truncated = false;
  std::vector<SampleFrame> frames;  // leaf first: kernel, native, Java
  EventContext context;
};

// A jdk.ObjectAllocationSample.
struct AllocationSample {
  int64_t osThreadId = 0;
  int64_t startTime = 0;  // ticks
  std::string objectClass;  // internal form: "[B", "com/example/Particle"
  int64_t weight = 0;
  bool truncated = false;
  std::vector<SampleFrame> frames;  // leaf first: the allocation site first
  EventContext context;
};

// A jdk.JavaMonitorEnter, jdk.JavaMonitorWait or jdk.ThreadPark.
struct LockEvent {
  bool wait = false;  // JavaMonitorWait
  bool park = false;  // ThreadPark
  int64_t osThreadId = 0;
  std::string threadName;  // OS name
  int64_t startTime = 0;  // ticks
  int64_t duration = 0;
  std::string monitorClass;  // internal form; a park's blocker's
  int64_t timeout = 0;       // waits: ms; parks: ns
  bool timedOut = false;
  bool truncated = false;
  std::vector<SampleFrame> frames;  // leaf first: the wait's site first
  EventContext context;
};

// A jdk.MethodTrace.
struct MethodTraceEvent {
  int64_t osThreadId = 0;
  std::string threadName;  // OS name
  std::string methodName;  // the traced method's
  int64_t duration = 0;
  EventContext context;
};

struct Recorded {
  std::vector<Sample> samples;
  std::vector<MethodTraceEvent> methodTraces;
  std::vector<OffCpuSample> offCpuSamples;
  std::vector<AllocationSample> allocationSamples;
  std::vector<LockEvent> lockEvents;
  std::map<int64_t, int64_t> offCpuLostNsByThread;  // osThreadId -> jfrbpf.OffCPUSamplesLost lostTime
  std::map<int64_t, int64_t> lostByThread;  // osThreadId -> sum of jdk.CPUTimeSamplesLost.lostSamples
  // osThreadId -> the CPU time its samples stand for (samplingPeriod) and its lost samples stood for
  // (jfrbpf.SampleLoss lostCpuTime): what the recording says the thread used.
  std::map<int64_t, int64_t> cpuNsByThread;
  // osThreadId -> its CPU time over the recording by the kernel's accounting (jfrbpf.ThreadCPUTime)
  std::map<int64_t, int64_t> kernelCpuNsByThread;
  // osThreadId -> the span of the recording it was alive for (jfrbpf.ThreadCPUTime wallTime)
  std::map<int64_t, int64_t> wallNsByThread;
  // osThreadId -> its time waiting for a CPU over the recording (jfrbpf.ThreadCPUTime runDelay)
  std::map<int64_t, int64_t> runDelayNsByThread;
  int64_t lostTotal = 0;
  std::map<std::string, int64_t> lossCauses;  // jfrbpf.SampleLoss cause -> lostSamples
  std::vector<std::string> notes;             // jfrbpf.Note messages
  size_t chunks = 0;
};

Recorded readRecording(const std::string& path);

// True if any frame has this method name (and class, when given).
bool hasFrame(const Sample& sample, const std::string& method, const std::string& className = "");
bool hasFrame(const std::vector<SampleFrame>& frames, const std::string& method, const std::string& className = "");

}  // namespace jfrbpf::test
