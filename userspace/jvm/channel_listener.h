#pragma once
// The loader's end of the agent channel: a listening AF_UNIX socket in the abstract namespace, created
// inside the target's network namespace (abstract names are per network namespace) on a short-lived thread
// that entered it, so our own threads never change namespace. The name and a token are random, so other
// processes can neither guess where to connect nor pass as the agent; only a peer whose SO_PEERCRED pid
// is the target is accepted. Nothing exists on disk, and the name vanishes with the socket.
#include <sys/types.h>

#include <array>
#include <chrono>
#include <string>

#include "base/unique_fd.h"
#include "jvmsupport/protocol/records.h"

namespace jfrbpf::jvm {

class ChannelListener {
 public:
  // For a running JVM. Throws jfrbpf::Error if the target's network namespace cannot be entered or the
  // socket not created.
  explicit ChannelListener(pid_t targetPid);
  // For a JVM we are about to launch (it shares our network namespace): create the listener, pass
  // agentOptions() on the java command line, then setTargetPid() with the child's pid before accept().
  ChannelListener();
  void setTargetPid(pid_t pid) { targetPid_ = pid; }

  // The option string for the agent library (-agentpath:lib=OPTIONS or JVMTI.agent_load lib OPTIONS).
  const std::string& agentOptions() const { return options_; }
  const std::array<uint8_t, protocol::kTokenSize>& token() const { return token_; }
  pid_t targetPid() const { return targetPid_; }

  // The next connection from the target (others are closed unread). Throws jfrbpf::Error on timeout or
  // without a target pid.
  UniqueFd accept(std::chrono::milliseconds timeout);

 private:
  void init(bool enterTargetNamespace);

  pid_t targetPid_ = 0;
  std::array<uint8_t, protocol::kTokenSize> token_{};
  std::string name_;
  std::string options_;
  UniqueFd socket_;
};

}  // namespace jfrbpf::jvm
