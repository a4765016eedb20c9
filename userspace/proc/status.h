#pragma once
// /proc/PID/status (and /proc/PID/task/TID/status), the one parser of it. The process chooses its own name,
// which is in there, so every field is bounds-checked and a malformed line only leaves its field unset.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::proc {

struct ProcStatus {
  std::string name;                  // "Name:", at most 64 bytes (chosen by the process; escaped by the kernel)
  char state = '?';                  // "State:": R, S, D, T (stopped), t (traced), Z (zombie) ...
  pid_t tgid = 0;                    // "Tgid:": the process a thread id belongs to
  std::optional<uid_t> effectiveUid;  // 2nd value of "Uid:"; nullopt when missing or malformed
  std::optional<gid_t> effectiveGid;  // 2nd value of "Gid:"; likewise
  std::vector<pid_t> nsTgid;         // "NStgid:": the process id in our pid namespace, then in each nested one
  std::vector<pid_t> nsPid;          // "NSpid:": the same for the thread whose status this is
  uint64_t caughtSignals = 0;        // "SigCgt:", bit (signo - 1) set when a handler is installed

  // Every kernel prints Uid: and Gid:, so text without them is no status file (or was cut short).
  bool hasIds() const { return effectiveUid.has_value() && effectiveGid.has_value(); }
  // The id the process (or thread) sees for itself: the innermost namespace's. 0 when the kernel did not say.
  pid_t innermostTgid() const { return nsTgid.empty() ? 0 : nsTgid.back(); }
  pid_t innermostPid() const { return nsPid.empty() ? 0 : nsPid.back(); }
  bool catches(int signo) const { return signo >= 1 && signo <= 64 && ((caughtSignals >> (signo - 1)) & 1) != 0; }
};

ProcStatus parseStatus(std::string_view text);

}  // namespace jfrbpf::proc
