#pragma once
// Connecting a target JVM to a recording: its agent attached and its walker tables published, then what the
// event sources ask of its code instrumented (methods timed and traced, the waits of virtual threads). Failures never stop a recording: the process
// is then sampled with native and kernel frames, and the reason is said once on the terminal and in the file.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "jvmsupport/protocol/timing_records.h"
#include "userspace/record/jvm/jvm_connection.h"
#include "userspace/record/sampling/jvm_kernel_side.h"
#include "userspace/timing/method_timing_options.h"

namespace jfrbpf::record {

inline constexpr std::chrono::seconds kAgentTimeout{30};
// How long an agent may take to do what it is asked (instrumenting can retransform thousands of classes when
// a filter names a method of every class).
inline constexpr std::chrono::seconds kAgentRequestTimeout{120};
// Statistics rows over all JVMs of a recording, shared out between them.
inline constexpr uint32_t kMethodSlots = 1u << 16;

bool isJavaLauncher(const std::string& program);

// Gives the sampler what it needs to walk the Java frames of `jvm` (a note is appended when it cannot).
void publishJvm(JvmConnection& jvm, JvmKernelSide& sampler, std::vector<std::string>& notes);

// What a JVM's agent is asked to hook into its code, by all the event sources together (one request per
// JVM): the methods to time and trace, and the waits of its virtual threads, which the same hooks time.
struct Instrumentation {
  timing::MethodTimingOptions methods;
  uint64_t virtualWaitIntervalNs = protocol::kNoVirtualThreadWaits;  // the off-CPU interval of their waits

  bool empty() const { return !methods.enabled() && virtualWaitIntervalNs == protocol::kNoVirtualThreadWaits; }
  // What it starts, for notes: "method timing" or "the waits of virtual threads".
  const char* what() const { return methods.enabled() ? "method timing" : "the waits of virtual threads"; }
};

// Instruments `jvm` as `request` asks, using statistics slots [slotBase, slotLimit).
void instrument(JvmConnection& jvm, JvmKernelSide& sampler, const Instrumentation& request, uint32_t slotBase,
                uint32_t slotLimit, std::vector<std::string>& notes);

}  // namespace jfrbpf::record
