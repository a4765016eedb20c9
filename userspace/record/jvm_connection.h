#pragma once
// jfrbpf's link to one JVM: its agent loaded (by dynamic attach into a running JVM, or -agentpath at
// launch), the channel session that feeds the Java model, and the BPF tables the stack walker needs. Java
// frames for a process exist only through one of these.
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "userspace/attach/agent_staging.h"
#include "userspace/jvm/channel_listener.h"
#include "userspace/jvm/java_session.h"
#include "userspace/record/bpf_sampler.h"

namespace jfrbpf::record {

// Where the JVMTI agent library is: $JFRBPF_AGENT, else next to the jfrbpf executable, in ../lib/jfrbpf,
// or in the build tree. Throws jfrbpf::Error if there is none.
std::string agentLibraryPath();

class JvmConnection {
 public:
  // Loads the agent into running JVM `pid` and waits for its replay of the JVM's state. Throws
  // jfrbpf::Error (attach::AttachError for attach failures) with a one-line reason.
  static std::unique_ptr<JvmConnection> attach(pid_t pid, std::chrono::milliseconds timeout);

  // Launch mode: call before starting the JVM, put launchOption() on its command line, then
  // acceptLaunched(pid) once it runs. The replay is not awaited: the JVM builds its code as it starts.
  static std::unique_ptr<JvmConnection> forLaunch();
  std::string launchOption() const;
  void acceptLaunched(pid_t pid, std::chrono::milliseconds timeout);

  pid_t pid() const { return pid_; }
  jvm::JavaSession& session() { return *session_; }
  const jvm::JavaModel& model() const { return session_->model(); }
  // A one-line note for the user and the recording when something about the agent is worth knowing (for
  // example JDK 21+'s dynamic-agent warning on the target's stderr).
  const std::string& note() const { return note_; }

  // Publishes the walker's JVM layout to the sampler once it is known. Returns false (with `whyNot`) while
  // the layout is unknown.
  bool publish(BpfSampler& sampler, std::string& whyNot);

 private:
  JvmConnection() = default;

  pid_t pid_ = 0;
  std::unique_ptr<jvm::ChannelListener> listener_;  // launch mode only
  std::optional<attach::StagedAgent> staged_;
  std::unique_ptr<jvm::JavaSession> session_;
  std::string note_;
  bool layoutPublished_ = false;
};

}  // namespace jfrbpf::record
