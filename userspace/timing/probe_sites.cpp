#include "userspace/timing/probe_sites.h"

#include <sys/uio.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "base/error.h"
#include "userspace/proc/maps.h"
#include "userspace/proc/paths.h"

namespace jfrbpf::timing {

ProbeTarget locateProbeSite(pid_t pid, uint64_t address) {
  for (const proc::Mapping& entry : proc::readMaps(pid)) {
    if (!entry.executable || entry.inode == 0 || !entry.contains(address)) continue;
    return ProbeTarget{proc::mapFilesPath(pid, entry.start, entry.end), address - entry.start + entry.fileOffset};
  }
  char where[32];
  std::snprintf(where, sizeof where, "0x%" PRIx64, address);
  throw Error("the method hook at " + std::string(where) + " is in no file mapping of process " + std::to_string(pid) +
              " (the agent library is not mapped where the agent said)");
}

ProbeSiteState readProbeSiteState(pid_t pid, uint64_t address) {
  uint8_t bytes[5] = {};
  iovec local{bytes, sizeof bytes};
  iovec remote{reinterpret_cast<void*>(static_cast<uintptr_t>(address)), sizeof bytes};
  if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(sizeof bytes)) {
    return ProbeSiteState::kUnknown;
  }
  static constexpr uint8_t kNop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
  if (std::equal(bytes, bytes + 5, kNop5)) return ProbeSiteState::kNop;
  if (bytes[0] == 0xcc) return ProbeSiteState::kTrap;
  if (bytes[0] == 0xe8) return ProbeSiteState::kOptimized;
  return ProbeSiteState::kUnknown;
}

const char* describe(ProbeSiteState state) {
  switch (state) {
    case ProbeSiteState::kNop: return "not hit yet";
    case ProbeSiteState::kTrap: return "int3 trap (slow path)";
    case ProbeSiteState::kOptimized: return "optimized call (fast path)";
    case ProbeSiteState::kUnknown: return "unknown";
  }
  return "unknown";
}

bool hasUprobeTrampoline(pid_t pid) {
  try {
    for (const proc::Mapping& entry : proc::readMaps(pid)) {
      if (entry.path == "[uprobes-trampoline]") return true;
    }
  } catch (const Error&) {
    // the process is gone: no trampoline to speak of
  }
  return false;
}

}  // namespace jfrbpf::timing
