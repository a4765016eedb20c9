#pragma once
// How the user part of a sample's stack ended. Only a walk that reached the thread's outermost frame gives a
// complete stack; every other end is written with the stack trace's `truncated` flag and a marker frame
// where the missing frames would be, so that a flame graph shows it under `[truncated: CAUSE]` instead of
// as a root of its own.
#include <cstdint>
#include <string_view>

#include "bpf/sampler_abi.h"

namespace jfrbpf::record {

enum class StackEnd : uint8_t {
  kRoot,          // the thread's outermost frame: complete
  kDepthLimit,    // deeper than --stack-depth
  kReadFault,     // the stack could not be read where the walk went
  kUnknownCode,   // a pc in the JVM's code cache that is in no code blob
  kNoUnwindInfo,  // native code without a table row and without a usable frame pointer
  kBadFrame,      // a frame that failed a plausibility check
  kUnmapped,      // a frame whose pc no mapping of the process holds: what came below it was not trusted
  kNotTaken,      // an off-CPU record whose user stack could not be reached: a wait still going on when the
                  // recording stopped, or a thread without an rseq area
  // A JVM's sample taken without its Java layout: the walker took its Java code for native code without
  // unwind info. While its agent was not attached yet (a JVM found while it started):
  kJavaFramesPending,
  // ... and for a JVM that refused the agent (-XX:+DisableAttachMechanism and the like):
  kJavaFramesUnavailable,
  // ... and for a JVM whose Java frames the memory budget took away (--memory-limit):
  kJavaFramesDropped,
  // A virtual thread's frames below those thawed onto its carrier's stack, which the JVM keeps frozen in the
  // continuation's stack chunks on the Java heap (a return barrier stands for them on the stack): where the
  // walker could not go through them (bpf/frozen_frames.bpf.h), or the agent could not tell their layout.
  kContinuationFrozen,
  kCount,
};

// As the BPF walker reported it.
StackEnd walkEndOf(const jfrbpf_sample_record& record);

// "no unwind info": the cause as the summary, jfrbpf.TruncatedStacks and the marker frame name it.
std::string_view stackEndCause(StackEnd end);

// The marker frame's class and method name: `jfrbpf` and "[truncated: no unwind info]".
inline constexpr std::string_view kMarkerClass = "jfrbpf";
std::string_view markerFrameName(StackEnd end);
// The frame that stands where the walker skipped native frames it could not unwind, going on at the thread's
// last Java frame: the stack reaches its root, but not every frame is in it.
inline constexpr std::string_view kFramesSkipped = "[frames skipped: no unwind info]";

}  // namespace jfrbpf::record
