#pragma once
// Connecting a target JVM to a recording: its agent attached and its walker tables published, then (with
// --method-timing/--method-trace) its methods instrumented. Failures never stop a recording: the process
// is then sampled with native and kernel frames, and the reason is said once on the terminal and in the file.
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "userspace/record/bpf_sampler.h"
#include "userspace/record/jvm_attachment.h"
#include "userspace/record/jvm_connection.h"
#include "userspace/record/sample_pipeline.h"
#include "userspace/record/target_output.h"
#include "userspace/timing/method_timing_options.h"

namespace jfrbpf::record {

inline constexpr std::chrono::seconds kAgentTimeout{30};
// Statistics rows over all JVMs of a recording, shared out between them.
inline constexpr uint32_t kMethodSlots = 1u << 16;

bool isJavaLauncher(const std::string& program);

// Gives the sampler what it needs to walk the Java frames of `jvm` (a note is appended when it cannot).
void publishJvm(JvmConnection& jvm, BpfSampler& sampler, std::vector<std::string>& notes);

// A JVM being recorded whose agent attached late (`attachment`, published and instrumented already): on the
// consumer thread, `output` gets its Java frames from its next samples on, and `notes` with one that says
// since when.
void addLateJvm(JvmConnection& jvm, const JvmAttachment& attachment, TargetOutput& output, SamplePipeline& pipeline,
                std::vector<std::string> notes);
// A JVM being recorded whose attach ended without an agent: said on the terminal and in `output`, whose
// stacks of that JVM that stop short are marked as having no Java frames.
void refuseLateJvm(const JvmAttachment& attachment, TargetOutput& output, SamplePipeline& pipeline);

// Instruments the methods of `jvm` the filters select, using statistics slots [slotBase, slotLimit).
void startTiming(JvmConnection& jvm, BpfSampler& sampler, const timing::MethodTimingOptions& options, uint32_t slotBase,
                 uint32_t slotLimit, std::vector<std::string>& notes);

}  // namespace jfrbpf::record
