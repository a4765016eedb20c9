#pragma once
// Connecting a target JVM to a recording: its agent attached and its walker tables published, then (with
// --method-timing/--method-trace) its methods instrumented. Failures never stop a recording: the process
// is then sampled with native and kernel frames, and the reason is said once on the terminal and in the file.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "userspace/record/jvm/jvm_connection.h"
#include "userspace/record/sampling/jvm_kernel_side.h"
#include "userspace/timing/method_timing_options.h"

namespace jfrbpf::record {

inline constexpr std::chrono::seconds kAgentTimeout{30};
// Statistics rows over all JVMs of a recording, shared out between them.
inline constexpr uint32_t kMethodSlots = 1u << 16;

bool isJavaLauncher(const std::string& program);

// Gives the sampler what it needs to walk the Java frames of `jvm` (a note is appended when it cannot).
void publishJvm(JvmConnection& jvm, JvmKernelSide& sampler, std::vector<std::string>& notes);

// Instruments the methods of `jvm` the filters select, using statistics slots [slotBase, slotLimit), and with
// --off-cpu (`virtualWaitIntervalNs`, else protocol::kNoVirtualThreadWaits) the waits of its virtual threads.
void startTiming(JvmConnection& jvm, JvmKernelSide& sampler, const timing::MethodTimingOptions& options,
                 uint64_t virtualWaitIntervalNs, uint32_t slotBase, uint32_t slotLimit,
                 std::vector<std::string>& notes);

// --alloc: `jvm`'s agent samples allocations (a note is appended when it cannot).
void sampleAllocations(JvmConnection& jvm, JvmKernelSide& sampler, uint64_t intervalBytes, uint32_t samplesPerSecond,
                       std::vector<std::string>& notes);

// --lock: `jvm`'s agent reports monitor waits of at least `thresholdNs` (a note is appended when it cannot).
void profileLocks(JvmConnection& jvm, JvmKernelSide& sampler, int64_t thresholdNs, std::vector<std::string>& notes);

}  // namespace jfrbpf::record
