#include "userspace/attach/hotspot_vm.h"

#include "userspace/attach/message_text.h"

namespace jfrbpf::attach {

HotSpotVm HotSpotVm::inspect(pid_t pid) {
  TargetProcess process = TargetProcess::open(pid);
  JvmFacts facts = inspectJvm(process);
  return HotSpotVm(std::move(process), std::move(facts));
}

Reply HotSpotVm::execute(std::string_view command, const Arguments& arguments, const AttachTimeouts& timeouts) const {
  std::string request = encodeRequest(command, arguments);
  const std::string whatFor = "the \"" + std::string(command) + "\" request to " + process_.describe();
  UniqueFd socket = connectToListener(process_, facts_, timeouts.listenerStart);
  const std::string slowHint = command == "load"
                                   ? "the agent's Agent_OnAttach is slow or stuck; allow it more time"
                                   : "the JVM may be overloaded or stuck in a long safepoint; retry with more time";
  std::string raw;
  try {
    raw = exchange(std::move(socket), request, timeouts.reply, whatFor, slowHint);
  } catch (const AttachError& error) {
    if (error.kind() != AttachFailure::NotResponding || !process_.stopped()) throw;
    throw AttachError(AttachFailure::NotResponding, whatFor + " got no answer: " + process_.describe() +
                                                        " is stopped (SIGSTOP or a debugger); resume it and retry");
  }
  std::optional<Reply> reply = parseReply(raw);
  if (!reply) {
    throw AttachError(AttachFailure::ProtocolError,
                      whatFor + " got a reply that does not start with a status line: \"" + oneLine(raw, 120) + "\"");
  }
  return std::move(*reply);
}

std::string HotSpotVm::jcmd(std::string_view commandLine, const AttachTimeouts& timeouts) const {
  Reply reply = execute("jcmd", {commandLine, "", ""}, timeouts);
  if (reply.status != 0) {
    throw AttachError(AttachFailure::CommandFailed, "jcmd \"" + oneLine(commandLine, 80) + "\" failed in " +
                                                        process_.describe() + ": " + oneLine(reply.text));
  }
  return std::move(reply.text);
}

void HotSpotVm::ensureAgentsAccepted(std::string_view library) const {
  constexpr int kFirstVersionEnforcingTheFlag = 21;
  if (facts_.dynamicAgentLoadingFlag == false &&
      facts_.javaFeatureVersion.value_or(kFirstVersionEnforcingTheFlag) >= kFirstVersionEnforcingTheFlag) {
    throw AttachError(AttachFailure::AgentLoadFailed,
                      "loading agent " + oneLine(library, 200) + " into " + process_.describe() +
                          " is impossible: it runs with -XX:-EnableDynamicAgentLoading; restart it without that flag "
                          "or start it with -agentpath");
  }
}

void HotSpotVm::load(std::string_view library, bool absolutePath, std::string_view options,
                     const AttachTimeouts& timeouts) const {
  ensureAgentsAccepted(library);
  Reply reply = execute("load", {library, absolutePath ? "true" : "false", options}, timeouts);
  LoadOutcome outcome = interpretLoadReply(reply);
  if (outcome.succeeded()) return;
  std::string message = "loading agent " + oneLine(library, 200) + " into " + process_.describe() + " failed: ";
  if (outcome.agentRan) {
    message += "its Agent_OnAttach returned " + std::to_string(outcome.agentResult) + "; see the JVM's stderr";
    throw AttachError(AttachFailure::AgentLoadFailed, message, outcome.agentResult);
  }
  if (outcome.beforeLivePhase) {
    throw AttachError(AttachFailure::NotReady, message + outcome.jvmText + " (the JVM is still starting)");
  }
  throw AttachError(AttachFailure::AgentLoadFailed, message + outcome.jvmText);
}

StagedAgent HotSpotVm::loadAgentLibrary(const std::string& hostLibraryPath, std::string_view options,
                                        const AttachTimeouts& timeouts) const {
  ensureAgentsAccepted(hostLibraryPath);
  StagedAgent staged = StagedAgent::prepare(process_, hostLibraryPath);
  load(staged.pathInTarget(), true, options, timeouts);
  staged.remove();  // loaded: the JVM's mapping outlives the file
  return staged;
}

}  // namespace jfrbpf::attach
