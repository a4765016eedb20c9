#pragma once
// Reader for HotSpot's hsperfdata file (the shared-memory counters jps/jstat use): the authoritative source for
// "is attach enabled" (sun.rt.jvmCapabilities), the Java version and the JVM arguments, read without talking
// to the JVM. The bytes come from the target, so every offset is checked against the buffer.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace jfrbpf::attach {

struct PerfData {
  std::map<std::string, std::string, std::less<>> strings;  // byte-vector counters, up to their first NUL
  std::map<std::string, int64_t, std::less<>> longs;        // scalar long counters

  const std::string* string(std::string_view name) const;
};

// nullopt when the buffer is not an hsperfdata file (bad magic or unsupported version); entries that are
// malformed end the parse, keeping what was read before them.
std::optional<PerfData> parsePerfData(std::span<const uint8_t> bytes);

}  // namespace jfrbpf::attach
