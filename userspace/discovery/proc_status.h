#pragma once
// The parts of /proc/PID/status and /proc/PID/stat that discovery needs. The process chooses its own name,
// which appears in both files, so parsing is bounds-checked and tolerant of odd names.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace jfrbpf::discovery {

struct ProcStatus {
  char state = '?';              // R, S, D, T (stopped), t (traced), Z (zombie) ...
  pid_t tgid = 0;
  uid_t effectiveUid = 0;        // 2nd value of "Uid:"
  gid_t effectiveGid = 0;        // 2nd value of "Gid:"
  std::vector<pid_t> nsTgid;     // "NStgid:": the process id in our pid namespace, then in each nested one
  std::vector<pid_t> nsPid;      // "NSpid:": the same for the thread whose status this is
  uint64_t caughtSignals = 0;    // "SigCgt:", bit (signo - 1) set when a handler is installed

  // The id the process (or thread) sees for itself: the innermost namespace's. 0 when the kernel did not say.
  pid_t innermostTgid() const { return nsTgid.empty() ? 0 : nsTgid.back(); }
  pid_t innermostPid() const { return nsPid.empty() ? 0 : nsPid.back(); }
  bool catches(int signo) const { return signo >= 1 && signo <= 64 && ((caughtSignals >> (signo - 1)) & 1) != 0; }
};

// nullopt when "Uid:" is missing or malformed (every kernel prints it).
std::optional<ProcStatus> parseProcStatus(std::string_view text);

struct ProcStat {
  char state = '?';
  unsigned flags = 0;          // PF_* flags (field 9)
  uint64_t startTicks = 0;     // start time in clock ticks after boot (field 22): with the pid, an identity
  uint64_t startCode = 0;      // field 26; 0 unless we may ptrace-read the process
  uint64_t argStart = 0;       // field 48; 0 likewise. Both change on every execve (new layout, ASLR).
  std::string_view comm;       // points into the parsed text

  bool kernelThread() const { return (flags & 0x00200000u) != 0; }  // PF_KTHREAD
};

// nullopt when the text is not a stat line (no "(comm)" or too few fields).
std::optional<ProcStat> parseProcStat(std::string_view text);

}  // namespace jfrbpf::discovery
