#pragma once
// The agent's option string (see jvmsupport/protocol/records.h for its grammar). Parsed without
// allocation into fixed storage: the options come from whoever attached and are checked like any input.
#include <array>
#include <cstddef>
#include <cstdint>

#include "jvmsupport/protocol/records.h"

namespace jfrbpf::agent {

struct AgentOptions {
  // Abstract socket name; sun_path holds 107 bytes after the leading NUL.
  std::array<char, 108> channel{};
  size_t channelLength = 0;
  std::array<uint8_t, protocol::kTokenSize> token{};
  uint32_t protocolVersion = 0;
  size_t bufferBytes = size_t{8} << 20;  // the record ring between callbacks and the agent thread
};

// False (with a one-line reason in `error`) if the string is malformed, lacks the channel or token, or asks
// for a protocol version this agent does not speak.
bool parseAgentOptions(const char* text, AgentOptions& out, const char*& error);

}  // namespace jfrbpf::agent
