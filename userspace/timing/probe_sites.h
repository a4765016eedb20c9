#pragma once
// Where the uprobe for the agent's trace stub goes, and whether the kernel put it on its fast path.
//
// The stubs live in the copy of the agent library the target mapped, which may sit in another mount
// namespace or may have been deleted since (the staged copy is removed after loading): the probe is
// attached through /proc/PID/map_files/START-END, the mapping itself, with the file offset of the site.
//
// Linux 6.18+ on x86_64 rewrites a probed 5-byte NOP into a call to a "[uprobes-trampoline]" page after the
// first hit (a few hundred ns per hit instead of an int3 trap's microseconds). The site's bytes in the
// target's memory tell which path is in effect: e8 (call) optimized, cc (int3) trapping.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace jfrbpf::timing {

struct ProbeTarget {
  std::string path;  // /proc/PID/map_files/START-END
  uint64_t fileOffset = 0;
};

// Throws jfrbpf::Error when `address` is in no executable file mapping of `pid`.
ProbeTarget locateProbeSite(pid_t pid, uint64_t address);

enum class ProbeSiteState {
  kNop,        // the original NOP: not probed, or not hit yet
  kTrap,       // int3: every hit traps (slow path)
  kOptimized,  // call to the uprobe trampoline (fast path)
  kUnknown,    // unreadable, or bytes that are none of the above
};

ProbeSiteState readProbeSiteState(pid_t pid, uint64_t address);
const char* describe(ProbeSiteState state);

// Whether the kernel mapped its uprobe trampoline page into `pid` (it does so for the first optimized probe).
bool hasUprobeTrampoline(pid_t pid);

}  // namespace jfrbpf::timing
