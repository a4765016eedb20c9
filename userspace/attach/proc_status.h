#pragma once
// The facts jfrbpf needs from /proc/PID/status, parsed from text that the target can influence (its name is
// in there), so every field is bounds-checked and a malformed file yields nullopt, never a crash.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jfrbpf::attach {

struct ProcStatus {
  std::string name;  // "Name:" (the command name, chosen by the process; escaped by the kernel)
  char state = '?';
  pid_t threadGroup =
      0;  // "Tgid:", the process a thread id belongs to              // R, S, D, T (stopped), t (traced), Z ...
  uid_t effectiveUid = 0;      // 2nd value of "Uid:"
  gid_t effectiveGid = 0;      // 2nd value of "Gid:"
  pid_t namespacePid = 0;      // last value of "NStgid:" (the pid the process sees itself as); 0 if absent
  uint64_t caughtSignals = 0;  // "SigCgt:" mask, bit (signo - 1) set when a handler is installed

  bool catches(int signo) const { return signo >= 1 && signo <= 64 && (caughtSignals >> (signo - 1)) & 1; }
};

// nullopt when "Uid:" or "Gid:" is missing or malformed (every kernel we support prints both).
std::optional<ProcStatus> parseProcStatus(std::string_view text);

}  // namespace jfrbpf::attach
