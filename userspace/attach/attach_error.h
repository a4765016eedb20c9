#pragma once
// Attach failures carry a kind, so callers (and tests) can react to the cause rather than to the wording; the
// message itself stays one user-facing line that names the problem and a fix.
#include <optional>
#include <string>

#include "base/error.h"

namespace jfrbpf::attach {

enum class AttachFailure {
  NoSuchProcess,     // the pid does not exist, or the process exited while we worked on it
  NotHotSpot,        // no libjvm.so mapped, or a JVM that does not speak the HotSpot protocol
  NotReady,          // a HotSpot JVM still starting: no SIGQUIT handler yet, or not in JVMTI's live phase yet
  AttachDisabled,    // -XX:+DisableAttachMechanism
  NotResponding,     // the attach listener never appeared, or the reply did not come in time
  PermissionDenied,  // our privileges are not enough to inspect, signal or connect
  UnsafeTarget,      // the target's filesystem is arranged in a way we refuse to work with
  AgentLoadFailed,   // the JVM refused the library or Agent_OnAttach returned non-zero
  CommandFailed,     // a jcmd-style command reported an error
  ProtocolError,     // the reply does not follow the attach protocol, or a request exceeds its limits
};

class AttachError : public Error {
 public:
  AttachError(AttachFailure kind, const std::string& message, std::optional<int> agentResult = std::nullopt)
      : Error(message), kind_(kind), agentResult_(agentResult) {}
  AttachFailure kind() const noexcept { return kind_; }
  // What Agent_OnAttach returned, when it ran and failed.
  std::optional<int> agentResult() const noexcept { return agentResult_; }

 private:
  AttachFailure kind_;
  std::optional<int> agentResult_;
};

}  // namespace jfrbpf::attach
