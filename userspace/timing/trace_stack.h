#pragma once
// A traced invocation's stack, as JDK 25 records jdk.MethodTrace's: starting at the caller of the traced
// method. The walk starts in the trace stub, so the raw stack is: the stub and the native function the hook
// class's `traced` is bound to, that method's native frame, the hook's exit (usually inlined into the traced
// method), then the traced method, which C2 may have inlined into its caller's physical frame. The frames
// up to and including the traced method are dropped by locating its frame among the first few physical
// frames with the rules the stack resolver names frames by (jvm/walked_frame.h).
#include <cstdint>
#include <span>

#include "bpf/sampler_abi.h"
#include "userspace/jvm/java_model.h"
#include "userspace/jvm/timed_methods.h"
#include "userspace/jvm/walked_frame.h"

namespace jfrbpf::timing {

struct CallerFrames {
  bool found = false;
  uint32_t rawFrames = 0;       // physical frames to drop from the top
  uint32_t resolvedFrames = 0;  // then resolved frames to drop from the next physical frame's inline chain
};

// Where the caller's stack starts in `record` (a trace record's stack), or found = false when the traced
// method is not among the top frames (the walk failed early, or code the model does not know yet). `now`:
// the model's time, at which code unknown at the record's time is looked up (jvm::codeAtWalkedPc).
CallerFrames findCaller(const jvm::JavaModel& model, const jfrbpf_sample_record& record,
                        const jvm::TimedMethodInfo& method, jvm::ModelNow now, std::span<jvm::JavaFrame> scratch);

// When the traced method cannot be found: the frames that are certainly the hook's own, the stubs down to
// the hook class's native method (or the trace stub alone when that is not found among the top frames), so
// that the stack at least starts at the traced method.
uint32_t hookFrames(const jvm::JavaModel& model, const jfrbpf_sample_record& record, std::string_view hookClass,
                    jvm::ModelNow now, std::span<jvm::JavaFrame> scratch);

// Removes the first `frames` user frames of `record`, in place.
void dropTopFrames(jfrbpf_sample_record& record, uint32_t frames);

}  // namespace jfrbpf::timing
