#pragma once
// One physical frame of a stack as the BPF walker recorded it (a pc; for an interpreted frame its Method*,
// with the bcp in place of the pc) and the Java frames it stands for in a JVM's model. The stack resolver
// names the frames of CPU samples and method traces look for their traced method with these same rules.
#include <cstdint>
#include <optional>
#include <span>

#include "userspace/jvm/java_model.h"

namespace jfrbpf::jvm {

// The model's time now, asked only when needed (a clock read per frame would be a good part of a sample's
// cost).
using ModelNow = uint64_t (*)();

// The code a walked pc is in, as it was at the record's time `ticks` or, unknown then, as it is `now()`:
// JVMTI reports a compiled method only after HotSpot installed it, and threads may run it before that
// report's timestamp. `ticks` becomes the time the code was looked up at. Return addresses are looked up
// at the exact pc: the pc record HotSpot keeps for a call site is at the return address itself.
PcInfo codeAtWalkedPc(const JavaModel& model, uint64_t pc, uint64_t& ticks, ModelNow now);

// The Java frames of a compiled frame at `pc`, innermost (inlined) first and the blob's own method last;
// its own method alone (line and bci unknown) where the blob's debug information says nothing about `pc`.
// Writes at most out.size() frames; returns how many.
size_t compiledJavaFrames(const JavaModel& model, const CompiledBlob& blob, uint64_t pc, uint64_t ticks,
                          std::span<JavaFrame> out);

// An interpreted frame from its Method* and the bcp the walker read from it; nullopt if the agent has not
// described the method. For the interrupted frame, `liveBcp` (the bcp register) is preferred where it lies
// in the method's bytecode: the frame's slot may be stale.
std::optional<JavaFrame> interpretedJavaFrame(const JavaModel& model, uint64_t methodPtr, uint64_t bcp, uint64_t ticks,
                                              std::optional<uint64_t> liveBcp = std::nullopt);

}  // namespace jfrbpf::jvm
