#pragma once
// A userspace stack walker that uses exactly the compact tables the BPF walker gets (same rows, same
// search, same rules; see unwind_abi.h), so that table correctness is testable without BPF and the BPF
// walker can be checked frame by frame against it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "userspace/unwind/memory_reader.h"
#include "userspace/unwind/process_maps.h"

namespace jfrbpf::unwind {

struct Registers {
  uint64_t pc = 0;
  uint64_t sp = 0;
  uint64_t rbp = 0;
  std::optional<uint64_t> rax;  // the innermost frame's, where known: 0 in a clone's child (a CLONE row)
};

struct Frame {
  uint64_t pc = 0;
  uint64_t sp = 0;
  bool signalFrame = false;  // this frame is the sigreturn trampoline
};

enum class WalkEnd : uint8_t {
  kEndOfStack,    // reached the outermost frame (return address undefined, or a zero return address)
  kNoMapping,     // pc outside every mapped file
  kNoUnwindInfo,  // pc in a file, but no FDE covers it
  kUnsupported,   // covered by a rule the tables cannot express
  kRbpUnknown,    // the CFA is rbp-based but rbp could not be recovered in an inner frame
  kReadFailed,    // stack memory unreadable
  kBadFrame,      // the stack pointer did not move up: corrupt stack or wrong rule
  kDepthLimit,
};
const char* walkEndName(WalkEnd end);

struct Walk {
  std::vector<Frame> frames;  // innermost first; frames[0].pc is the pc of the given registers
  WalkEnd end = WalkEnd::kDepthLimit;
};

// Walks from regs (the innermost frame, e.g. from PTRACE_GETREGS or a perf sample).
Walk unwindStack(const Registers& regs, const AddressSpace& space, const MemoryReader& memory,
                 size_t maxFrames = 512);

// True when the code at pc is the x86_64 rt_sigreturn trampoline ("mov $15,%rax; syscall"), for frames in
// code without unwind information for it.
bool isSigreturnTrampoline(const MemoryReader& memory, uint64_t pc);

}  // namespace jfrbpf::unwind
