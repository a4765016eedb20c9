#pragma once
// The attach client's front door: inspect a HotSpot JVM, run jcmd-style commands in it, and load a JVMTI agent
// into it, over HotSpot's dynamic attach protocol (v1) without any JDK tool at run time.
//
//   auto vm = HotSpotVm::inspect(pid);                        // throws AttachError with a one-line reason
//   if (vm.facts().loadingAgentPrintsWarning()) print(dynamicAgentWarningNote(vm.target()));
//   StagedAgent agent = vm.loadAgentLibrary(agentSo, options); // the copy is already gone once loaded
//   std::string version = vm.jcmd("VM.version");
#include <chrono>
#include <string>
#include <string_view>

#include "userspace/attach/agent_staging.h"
#include "userspace/attach/attach_error.h"
#include "userspace/attach/exchange.h"
#include "userspace/attach/jvm_facts.h"
#include "userspace/attach/listener_connection.h"
#include "userspace/attach/protocol.h"
#include "userspace/attach/target_process.h"

namespace jfrbpf::attach {

struct AttachTimeouts {
  std::chrono::milliseconds listenerStart = kDefaultListenerTimeout;  // trigger + SIGQUIT until the socket exists
  std::chrono::milliseconds reply = kDefaultReplyTimeout;             // request until the complete reply
};

class HotSpotVm {
 public:
  // Pins the process and reads what /proc and hsperfdata tell. Throws AttachError: NoSuchProcess, NotHotSpot,
  // PermissionDenied. Sends nothing to the process.
  static HotSpotVm inspect(pid_t pid);

  const Target& target() const { return process_.target(); }
  const JvmFacts& facts() const { return facts_; }
  const TargetProcess& process() const { return process_; }

  // Runs a diagnostic command ("VM.version", "VM.system_properties", "Thread.print -l") and returns its
  // output. Throws AttachError(CommandFailed) with the JVM's reason, or the connection errors.
  std::string jcmd(std::string_view commandLine, const AttachTimeouts& timeouts = {}) const;

  // "load": the JVM dlopens `library` (absolute path as the target sees it, or a name it resolves itself)
  // and calls its Agent_OnAttach with `options`. Throws AttachError(AgentLoadFailed) naming the JVM's reason
  // or the agent's return code, or the connection errors.
  void load(std::string_view library, bool absolutePath, std::string_view options,
            const AttachTimeouts& timeouts = {}) const;

  // Makes jfrbpf's agent available to the JVM (reusing a loaded one, else copying `hostLibraryPath` into its
  // /tmp) and loads it with `options`. The copy is removed as soon as the JVM has loaded it: the returned
  // handle tells where it was and whether a loaded agent was reused.
  StagedAgent loadAgentLibrary(const std::string& hostLibraryPath, std::string_view options,
                               const AttachTimeouts& timeouts = {}) const;

  // One raw protocol round trip, for commands without a dedicated method ("properties", "agentProperties").
  Reply execute(std::string_view command, const Arguments& arguments, const AttachTimeouts& timeouts = {}) const;

 private:
  HotSpotVm(TargetProcess process, JvmFacts facts) : process_(std::move(process)), facts_(std::move(facts)) {}
  // JDK 21+ started with -XX:-EnableDynamicAgentLoading refuses every agent: say so before copying or signalling.
  void ensureAgentsAccepted(std::string_view library) const;

  TargetProcess process_;
  JvmFacts facts_;
};

}  // namespace jfrbpf::attach
