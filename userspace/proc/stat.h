#pragma once
// /proc/PID/stat (and /proc/PID/task/TID/stat), the one parser of it: the fields jfrbpf uses to tell a
// process's identity (start time) and an execve (new layout) from outside, and its CPU time. The process
// chooses its comm, which may hold spaces and ')'.
#include <cstdint>
#include <optional>
#include <string_view>

namespace jfrbpf::proc {

struct ProcStat {
  char state = '?';
  unsigned flags = 0;       // PF_* flags (field 9)
  uint64_t userTicks = 0;   // CPU time in user mode, in clock ticks (field 14)
  uint64_t systemTicks = 0;  // and in the kernel (field 15)
  uint64_t startTicks = 0;  // start time in clock ticks after boot (field 22): with the pid, an identity
  uint64_t startCode = 0;   // field 26; 0 unless we may ptrace-read the process
  uint64_t argStart = 0;    // field 48; 0 likewise. Both change on every execve (new layout, ASLR).
  std::string_view comm;    // points into the parsed text

  bool kernelThread() const { return (flags & 0x00200000u) != 0; }  // PF_KTHREAD
};

// nullopt when the text is not a stat line (no "(comm)" or too few fields).
std::optional<ProcStat> parseStat(std::string_view text);

}  // namespace jfrbpf::proc
