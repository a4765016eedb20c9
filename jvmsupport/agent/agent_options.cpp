#include "jvmsupport/agent/agent_options.h"

#include <cstring>
#include <string_view>

namespace jfrbpf::agent {

namespace {

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool parseToken(std::string_view hex, AgentOptions& out) {
  if (hex.size() != 2 * protocol::kTokenSize) return false;
  for (size_t i = 0; i < protocol::kTokenSize; ++i) {
    int hi = hexDigit(hex[2 * i]);
    int lo = hexDigit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.token[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

bool parseNumber(std::string_view digits, uint32_t& out) {
  if (digits.empty() || digits.size() > 6) return false;
  uint32_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  out = v;
  return true;
}

// Abstract names are arbitrary bytes to the kernel; restricting them keeps them printable in errors.
bool validChannelName(std::string_view name) {
  if (name.empty() || name.size() >= sizeof(AgentOptions::channel)) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
              c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool parseAgentOptions(const char* text, AgentOptions& out, const char*& error) {
  out = AgentOptions{};
  if (text == nullptr) return error = "no agent options (expected channel:...,token:...,protocol:...)", false;
  std::string_view rest(text);
  bool haveChannel = false, haveToken = false, haveVersion = false;
  // Split with remove_prefix and explicit lengths only: substr() would pull libstdc++'s exception helpers
  // into an agent that links no C++ runtime.
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item(rest.data(), comma == std::string_view::npos ? rest.size() : comma);
    rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
    size_t eq = item.find_first_of(":=");
    if (eq == std::string_view::npos) return error = "agent option without ':' between name and value", false;
    std::string_view key(item.data(), eq);
    std::string_view value(item.data() + eq + 1, item.size() - eq - 1);
    if (key == protocol::kOptionChannel) {
      if (!validChannelName(value)) return error = "bad channel name in agent options", false;
      std::memcpy(out.channel.data(), value.data(), value.size());
      out.channelLength = value.size();
      haveChannel = true;
    } else if (key == protocol::kOptionToken) {
      if (!parseToken(value, out)) return error = "bad token in agent options (expected 32 hex digits)", false;
      haveToken = true;
    } else if (key == protocol::kOptionProtocol) {
      if (!parseNumber(value, out.protocolVersion)) return error = "bad protocol version in agent options", false;
      haveVersion = true;
    } else if (key == protocol::kOptionBuffer) {
      uint32_t kib = 0;
      if (!parseNumber(value, kib) || kib < 64 || kib > 262144) {
        return error = "bad buffer size in agent options (KiB, 64 to 262144)", false;
      }
      out.bufferBytes = size_t{kib} << 10;
    }
    // Unknown keys are ignored: a newer loader may pass options this agent does not need.
  }
  if (!haveChannel || !haveToken) return error = "agent options lack channel= or token=", false;
  if (haveVersion && out.protocolVersion != protocol::kVersion) {
    return error = "loader speaks another channel protocol version: use the agent library of the same jfrbpf", false;
  }
  out.protocolVersion = protocol::kVersion;
  return true;
}

}  // namespace jfrbpf::agent
