#pragma once
// Samples of a recording, aggregated: what every output (views, collapsed stacks, flame graph, pprof) is
// made from. Usually CPU samples; off-CPU samples, both for a wall-clock profile, allocation samples or lock
// waits, where timeKind says.
// Samples with the same thread and the same stack form one group; stacks are paths in a call tree (a trie
// rooted at node 0), so a stack is one node id and shared prefixes are stored once.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/convert/frame_names.h"

namespace jfrbpf::convert {

struct ProfileMethod {
  std::string name;        // display name: "java.lang.String.indexOf(int)", "memcpy (libc.so.6)"
  std::string owner;       // Java class ("java.lang.String") or library ("libc.so.6", "kernel"); "" if unknown
  std::string systemName;  // as stored: "java/lang/String.indexOf(II)I", or the native symbol
  bool java = false;       // a Java method (possibly a `native` one) rather than native code
};

struct ProfileFrame {
  uint32_t method = 0;  // index into Profile::methods
  int32_t line = -1;    // -1 when unknown
  FrameKind kind = FrameKind::kUnknown;
};

struct StackNode {
  uint32_t parent = 0;  // node 0 (the root) is its own parent and has no frame
  uint32_t frame = 0;   // index into Profile::frames
  uint32_t depth = 0;   // 0 for the root, 1 for outermost frames
};

struct ProfileThread {
  std::string name;  // Java name if there is one, else the OS name; "[unknown thread]" when the event has none
  std::string osName;
  int64_t osThreadId = 0;
  int64_t javaThreadId = 0;
  bool isVirtual = false;
};

// Samples per slot of the profile's time grid, and the time they stand for; a group's entries are sorted by
// slot.
struct TimeCount {
  uint32_t slot = 0;
  uint32_t samples = 0;
  int64_t nanos = 0;
};

// The OpenTelemetry context samples were taken in, as jfrbpf writes it on events (traceIdHi, traceIdLo,
// spanId, contextAttributes).
struct ProfileContext {
  std::string traceId;  // 32 hex digits; "" outside a trace
  std::string spanId;   // 16 hex digits; "" outside a span
  std::vector<std::pair<std::string, std::string>> attributes;  // as written: values escaped (no control bytes)

  // "trace", "span" or an attribute's key -> its value here; "" when it has none.
  std::string_view value(std::string_view key) const;
};

// contextAttributes ("k=v, k2=a\\,b") split into (key, value) pairs at the separators jfrbpf does not escape.
std::vector<std::pair<std::string, std::string>> splitContextAttributes(std::string_view text);

// One sample of a group, for outputs that list samples one by one (OTLP) rather than add them up; kept only
// when asked (SampleFilter::keepEvents).
struct SampleEvent {
  int64_t timeNanos = 0;  // the event's start, nanoseconds since the epoch
  int64_t value = 0;      // what it stands for, as SampleGroup::cpuNanos does for the group
  uint32_t state = 0;     // index into Profile::eventStates: an off-CPU sample's state; 0: none
};

struct SampleGroup {
  uint32_t thread = 0;  // index into Profile::threads
  uint32_t node = 0;    // leaf of the stack in the call tree
  uint32_t context = 0;  // index into Profile::contexts (0: none)
  uint64_t samples = 0;
  // What the samples represent: CPU time (sum of samplingPeriod), or as timeKind says (bytes for allocations,
  // wait time for lock waits).
  int64_t cpuNanos = 0;
  std::vector<TimeCount> times;
  std::vector<SampleEvent> events;  // by time; empty unless kept (SampleFilter::keepEvents)
};

// What a profile's samples measure, and so what SampleGroup::cpuNanos holds.
enum class TimeKind : uint8_t {
  kCpu,     // CPU samples; their CPU time
  kOffCpu,  // jfrbpf.OffCPUSample events; the off-CPU time each stands for (its weight)
  kWall,    // both, each stack topped by a frame that says which: on CPU, or off CPU and in what state
  // jdk.ObjectAllocationSample events; not a time but the bytes each stands for (its weight), each stack
  // topped by the allocated class (FrameKind::kAllocatedClass)
  kAlloc,
  // jdk.JavaMonitorEnter, jdk.JavaMonitorWait and jdk.ThreadPark events; the time each thread waited (the
  // event's duration), each stack topped by the class of the monitor or blocker (FrameKind::kLockClass)
  kLock,
};

// How each kind of profile is named where it is shown.
struct TimeKindNames {
  std::string_view samples;     // "CPU samples"
  std::string_view graph;       // a flame graph's title: "CPU flame graph"
  std::string_view sampleType;  // pprof's sample type for the weight: "cpu", as Go's CPU profiles name it
  std::string_view measure;     // what a weighted flame graph's widths are; "" where they count samples
  std::string_view fileSuffix;  // of a converted file's default name, so one kind does not replace another
  std::string_view countType;   // pprof's sample type for the count: "samples", or as Go names it: "alloc_objects",
                                // "contentions"
  std::string_view unit;        // of the weight (pprof's unit): "nanoseconds", or "bytes" for allocations
};
inline constexpr TimeKindNames kTimeKindNames[] = {
    {"CPU samples", "CPU flame graph", "cpu", "", "", "samples", "nanoseconds"},
    {"off-CPU samples (jfrbpf.OffCPUSample)", "Off-CPU flame graph", "off_cpu", "off-CPU time", "-off-cpu", "samples",
     "nanoseconds"},
    {"CPU or off-CPU samples", "Wall-clock flame graph", "wall", "wall-clock time", "-wall", "samples", "nanoseconds"},
    {"allocation samples (jdk.ObjectAllocationSample)", "Allocation flame graph", "alloc_space", "allocated memory",
     "-alloc", "alloc_objects", "bytes"},
    // Go's mutex profiles: contentions/count and delay/nanoseconds.
    {"lock waits (jdk.JavaMonitorEnter, jdk.JavaMonitorWait, jdk.ThreadPark)", "Lock flame graph", "delay",
     "lock wait time", "-lock", "contentions", "nanoseconds"},
};
inline const TimeKindNames& timeKindNames(TimeKind kind) { return kTimeKindNames[static_cast<size_t>(kind)]; }

class Profile {
 public:
  std::string eventName;  // the sample event aggregated, e.g. "jdk.CPUTimeSample"; "" when there were none
  TimeKind timeKind = TimeKind::kCpu;

  // Time grid: slot i covers [gridStartNanos + i * gridNanos, + gridNanos), nanoseconds since the epoch.
  int64_t gridStartNanos = 0;
  int64_t gridNanos = 1;
  uint32_t gridSlots = 0;  // slots spanned by the samples (the last used slot + 1)

  // Recording span from the chunk headers, nanoseconds since the epoch.
  int64_t recordingStartNanos = 0;
  int64_t recordingEndNanos = 0;

  std::vector<ProfileMethod> methods;
  std::vector<ProfileFrame> frames;
  std::vector<StackNode> nodes;  // nodes[0] is the root
  std::vector<ProfileThread> threads;
  std::vector<ProfileContext> contexts;  // [0] is no context
  std::vector<std::string> eventStates;  // [0] is "": the states SampleEvent::state names ("sleeping", …)
  std::vector<SampleGroup> groups;

  uint64_t totalSamples = 0;  // after filtering
  int64_t totalCpuNanos = 0;
  uint64_t failedSamples = 0;      // no stack trace could be taken (JDK 25: failed = true)
  uint64_t biasedSamples = 0;      // JDK 25: top frame from a safepoint-biased location
  uint64_t truncatedSamples = 0;   // stopped before the thread's outermost frame (or past the depth limit)
  bool cpuTimeKnown = false;       // cpuNanos holds real values (samplingPeriod, a configured period, weights)
  int64_t settingPeriodNanos = 0;  // > 0 when cpuNanos come from the event's period setting, not each sample

  // The frames of the stack ending at `node`, leaf first.
  std::vector<uint32_t> stackLeafFirst(uint32_t node) const;
  const ProfileFrame& frameOf(uint32_t node) const { return frames[nodes[node].frame]; }
  const ProfileMethod& methodOf(uint32_t node) const { return methods[frames[nodes[node].frame].method]; }
};

}  // namespace jfrbpf::convert
