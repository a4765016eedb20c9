#pragma once
// Whether jfrbpf can load its agent into a JVM by dynamic attach, judged from the outside only (no signal
// is sent). HotSpot's attach: SIGQUIT plus a trigger file start the "Attach Listener", which serves a
// socket <tmp>/.java_pid<pid>; the agent is then loaded with the "load" command.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::discovery {

struct AttachVerdict {
  bool possible = true;
  std::string code;    // short form for tables: "" when possible, else "disabled", "no-agents", "stopped", "no-sigquit"
  std::string reason;  // one line for users: why not, and what would change it; "" when possible
};

struct AttachFacts {
  char state = 'S';                          // from /proc/PID/status
  std::optional<bool> capabilityAttach;      // sun.rt.jvmCapabilities[0]; nullopt without hsperfdata
  std::optional<int> featureVersion;         // 8, 17, 21, 25 ...; nullopt when unknown
  std::vector<std::string_view> vmOptions;   // java.rt.vmArgs + vmFlags words, or the command line's options
  bool catchesSigquit = true;                // SigCgt has SIGQUIT: the JVM's signal dispatcher is set up
  bool listenerRunning = false;              // <tmp>/.java_pid<nspid> is a socket: no signal needed
};

AttachVerdict judgeAttach(const AttachFacts& facts);

// The feature release in a java.version / JAVA_VERSION string: "1.8.0_412" -> 8, "17.0.15" -> 17, "25" -> 25,
// "26-ea" -> 26.
std::optional<int> javaFeatureVersion(std::string_view version);

}  // namespace jfrbpf::discovery
