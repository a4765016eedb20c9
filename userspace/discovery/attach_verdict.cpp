#include "userspace/discovery/attach_verdict.h"

#include <utility>

#include "userspace/discovery/java_command_line.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::discovery {
namespace {

AttachVerdict refuse(std::string code, std::string reason) { return AttachVerdict{false, std::move(code), std::move(reason)}; }

// JEP 451: from JDK 21 a JVM started with -XX:-EnableDynamicAgentLoading refuses agents loaded at run time
// (earlier releases accept the flag but still load them).
constexpr int kFirstReleaseEnforcingAgentFlag = 21;

}  // namespace

AttachVerdict judgeAttach(const AttachFacts& facts) {
  if (facts.state == 'T' || facts.state == 't') {
    return refuse("stopped", "the JVM is stopped (SIGSTOP or a debugger) and cannot answer; resume it (kill -CONT)");
  }
  if (facts.capabilityAttach == false || booleanVmFlag(facts.vmOptions, "DisableAttachMechanism") == true) {
    return refuse("disabled",
                  "started with -XX:+DisableAttachMechanism; restart it without that flag, or start it under "
                  "jfrbpf (jfrbpf record -- java ...)");
  }
  if (booleanVmFlag(facts.vmOptions, "EnableDynamicAgentLoading") == false &&
      facts.featureVersion.value_or(kFirstReleaseEnforcingAgentFlag) >= kFirstReleaseEnforcingAgentFlag) {
    return refuse("no-agents",
                  "started with -XX:-EnableDynamicAgentLoading, so it refuses agents at run time; restart it "
                  "without that flag, or start it under jfrbpf (jfrbpf record -- java ...)");
  }
  if (!facts.catchesSigquit && !facts.listenerRunning) {
    // Without the JVM's handler SIGQUIT would terminate the process (with -Xrs the listener starts eagerly,
    // so this means the VM is still starting or has torn its signal handling down).
    return refuse("no-sigquit",
                  "the JVM does not handle SIGQUIT yet (still starting, or shutting down); try again in a moment");
  }
  return {};
}

std::optional<int> javaFeatureVersion(std::string_view version) {
  if (version.starts_with("1.")) version.remove_prefix(2);  // "1.8.0_412": JDK 8 and older
  size_t end = 0;
  while (end < version.size() && version[end] >= '0' && version[end] <= '9') ++end;
  auto feature = proc::parseNumber<int>(version.substr(0, end));
  if (!feature || *feature <= 0) return std::nullopt;
  return feature;
}

}  // namespace jfrbpf::discovery
