#pragma once
// What can be learnt about a HotSpot JVM from outside, without talking to it: whether it is one at all, its
// version, whether attach is enabled, whether it already has a jfrbpf agent, and whether loading one will make
// it print JDK 21's dynamic-agent warning.
#include <optional>
#include <string>

#include "userspace/discovery/hsperfdata.h"
#include "userspace/attach/target_process.h"

namespace jfrbpf::attach {

// File names of jfrbpf's JVMTI agent library start with this (the agent target's output is
// libjfrbpf-agent.so); a mapping whose file name starts with it is taken to be a loaded jfrbpf agent.
inline constexpr std::string_view kAgentFileNamePrefix = "libjfrbpf-agent";

struct JvmFacts {
  std::string libjvmPath;                       // as mapped
  bool perfDataAvailable = false;               // hsperfdata counters could be read
  std::optional<int> javaFeatureVersion;        // 8, 11, 17, 21, 25 ...
  std::string javaVersion;                      // java.version, e.g. "17.0.15"
  std::string javaCommand;                      // main class or jar and its arguments (sun.rt.javaCommand)
  std::optional<bool> attachEnabled;            // false with -XX:+DisableAttachMechanism; nullopt = unknown
  std::optional<bool> dynamicAgentLoadingFlag;  // -XX:±EnableDynamicAgentLoading given explicitly
  std::string loadedAgentPath;                  // a jfrbpf agent the JVM has mapped, as mapped; "" if none

  // JDK 21+ (JEP 451) prints "WARNING: A JVM TI agent has been loaded dynamically" to the target's stderr
  // the first time an agent library is loaded dynamically, unless EnableDynamicAgentLoading was given on the
  // command line. jfrbpf does not suppress it; the loader may tell the user once why it appears.
  bool loadingAgentPrintsWarning() const;
};

// Throws AttachError(NotHotSpot) when no libjvm.so is mapped (with a hint for OpenJ9), or the /proc errors of
// TargetProcess.
JvmFacts inspectJvm(const TargetProcess& process);

// The feature release in a java.vm.specification.version / java.version string: "1.8" -> 8, "17.0.2" -> 17.
std::optional<int> javaFeatureVersion(std::string_view version);

// The one-line note a loader can print once when loadingAgentPrintsWarning().
std::string dynamicAgentWarningNote(const Target& target);

}  // namespace jfrbpf::attach
