#pragma once
// HotSpot attach protocol version 1: request encoding and reply interpretation, kept free of I/O so it can be
// unit- and fuzz-tested. Replies come from the target and are treated as untrusted text.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace jfrbpf::attach {

// Limits of the v1 wire format as HotSpot enforces them (attachListener.hpp).
inline constexpr size_t kMaxCommandLength = 16;
inline constexpr size_t kMaxArgumentLength = 1024;
inline constexpr size_t kArgumentCount = 3;

using Arguments = std::array<std::string_view, kArgumentCount>;

// "1\0" command "\0" arg1 "\0" arg2 "\0" arg3 "\0". Throws AttachError(ProtocolError) when a field is too
// long or contains a NUL (it would split the request differently on the JVM side).
std::string encodeRequest(std::string_view command, const Arguments& arguments);

struct Reply {
  int status = 0;    // first line: 0 = the operation ran
  std::string text;  // everything after the first line
};

// nullopt when the first line is not a decimal status.
std::optional<Reply> parseReply(std::string_view raw);

// What a "load" reply says about Agent_OnAttach:
//   JDK 8      "0\n<N>\n"
//   JDK 9-20   "0\nreturn code: <N>\n", or a non-zero status and the reason when the library was not loaded
//   JDK 21+    "0\nreturn code: <N>\n", or status 0 with only the reason (no "return code:") on failure
struct LoadOutcome {
  bool agentRan = false;  // Agent_OnAttach was called
  int agentResult = -1;   // its return value when agentRan
  std::string jvmText;    // the JVM's explanation, one line, when the agent did not run or failed
  // HotSpot refused because the JVM has not reached JVMTI's live phase: its attach listener answers from
  // early in its start-up, before it can host an agent. Asking again later succeeds.
  bool beforeLivePhase = false;
  bool succeeded() const { return agentRan && agentResult == 0; }
};
LoadOutcome interpretLoadReply(const Reply& reply);

}  // namespace jfrbpf::attach
