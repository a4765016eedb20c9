#pragma once
// Value types of the JFR writer's public interface (see recording.h).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_owner.h"

namespace jfrbpf::jfr {

using Ticks = int64_t;  // CLOCK_MONOTONIC nanoseconds; the chunk header declares 1e9 ticks per second

// The JDK's standard frame types (pool keys 0..3). Native and kernel frames are Native: tools that know only
// the JDK's set (JMC, IntelliJ, jfr view) then render them without custom types.
enum class FrameType : uint8_t { Interpreted = 0, JitCompiled = 1, Inlined = 2, Native = 3 };

// Stable for the whole recording; 0 means none/null.
using ClassId = uint32_t;
using MethodId = uint32_t;
using ThreadId = uint32_t;

// Descriptor for native and kernel symbols: a no-argument method, so every tool that parses descriptors
// (jfr print/view format the parameters between '(' and ')') prints "libc.so.6.malloc()".
inline constexpr std::string_view kNativeMethodDescriptor = "()V";

struct StackFrame {
  MethodId method;
  int32_t lineNumber;     // -1 = unknown
  int32_t bytecodeIndex;  // -1 = unknown
  FrameType type;
};

// The thread an event happened in: one interned for the recording (a platform thread), or, when
// virtualThreadId is nonzero, the virtual thread with that Java id. A JVM may run millions of virtual threads:
// the writer keeps nothing of one but its constant in the chunks that refer to it.
struct EventThread {
  ThreadId thread = 0;
  int64_t virtualThreadId = 0;

  EventThread(ThreadId platform = 0) : thread(platform) {}  // NOLINT(google-explicit-constructor)
  static EventThread virtualThread(int64_t javaThreadId) {
    EventThread t;
    t.virtualThreadId = javaThreadId;
    return t;
  }
};

// The OpenTelemetry context (OTEP 4947) the thread was in when an event was taken: its trace and span (W3C
// bytes as big-endian integers) and attributes, or why it could not be read. Events written with a non-empty
// one carry the context fields (metadata_schema.h) from the chunk it first appears in on.
struct TraceContext {
  uint64_t traceIdHi = 0, traceIdLo = 0, spanId = 0;
  uint8_t traceFlags = 0;
  std::string_view attributes;  // "http.route=/checkout, http.method=GET"; empty: none
  std::string_view notRead;     // why the thread's context could not be read; empty: it was, or there is none

  bool empty() const {
    return traceIdHi == 0 && traceIdLo == 0 && spanId == 0 && traceFlags == 0 && attributes.empty() && notRead.empty();
  }
};

struct ThreadInfo {
  std::string osName;        // empty = unknown (written as null)
  int64_t osThreadId = 0;    // Linux TID; distinct per thread (JMC identifies threads by it)
  std::string javaName;      // empty = not a Java thread (written as null)
  int64_t javaThreadId = 0;  // 0 for non-Java threads
  bool isVirtual = false;
};

// One jdk.ActiveSetting per chunk, e.g. {"jdk.CPUTimeSample", "throttle", "10 ms"}.
struct Setting {
  std::string eventName;
  std::string name;
  std::string value;
};

struct JvmInformation {
  std::string jvmName, jvmVersion, jvmArguments, jvmFlags, javaArguments;
  int64_t jvmStartTimeMillis = 0;  // wall clock, ms since the epoch
  int64_t pid = 0;
};

// Where the process a file records runs, as OpenTelemetry's resource attributes name it (host.name,
// process.executable.name and .path, container.id and .runtime, k8s.pod.name, k8s.namespace.name):
// jfrbpf.ProcessResource.
struct ProcessResource {
  int64_t pid = 0;
  std::string hostName;        // the host jfrbpf runs on
  std::string executableName;  // "java"
  std::string executablePath;  // inside the process's mount namespace
  std::string containerId;     // "" outside a container
  std::string containerRuntime;  // "docker", "containerd", ...; "" outside a container
  std::string k8sPodName;        // "" outside a Kubernetes pod
  std::string k8sNamespaceName;
};

// The events CPU samples are written as (Recording::cpuSample): JDK 25's jdk.CPUTimeSample (read by `jfr view
// cpu-time-hot-methods`), jdk.ExecutionSample (read by JMC, IntelliJ, Pyroscope, `jfr view hot-methods`), or
// both, each sample once in each.
enum class SampleEvents : uint8_t { kCpuTime, kExecution, kBoth };

struct RecordingOptions {
  std::string path;                    // destination .jfr
  std::optional<FileOwner> owner = {};  // who the file is handed to (else root's, or whoever runs jfrbpf)
  std::string name = "jfrbpf";         // jdk.ActiveRecording name
  uint64_t maxChunkBytes = 12u << 20;  // JFR's default maxchunksize
  Ticks maxChunkAge = 0;               // 0 = no age rotation (rotateIfDue never rotates)
  std::vector<Setting> settings = {};  // eventName must be one of the event types this writer declares
  SampleEvents sampleEvents = SampleEvents::kCpuTime;
  std::optional<JvmInformation> jvm = {};
  std::optional<ProcessResource> resource = {};
};

}  // namespace jfrbpf::jfr
