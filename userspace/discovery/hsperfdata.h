#pragma once
// Parser for HotSpot's hsperfdata file: the memory-mapped counters that jps, jstat and jcmd -l read. It
// tells, without talking to the JVM, its main class, Java version, start time and VM options. The bytes
// come from the JVM's user (or from anyone who planted a file under that name), so every offset and length
// is checked against the buffer and a malformed file yields what could be read, never a crash.
//
// Layout (format version 2, HotSpot perfMemory.hpp): a 32-byte prologue — magic CA FE C0 C0, byte order
// (0 big, 1 little endian), major, minor, accessible, used, overflow, modification time stamp, entry offset,
// entry count — followed by entries of { length, name offset, vector length, type, flags, units,
// variability, data offset }, each offset relative to the entry's start.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace jfrbpf::discovery {

struct PerfData {
  uint8_t majorVersion = 0;
  uint8_t minorVersion = 0;
  bool accessible = false;  // the JVM has finished initialising its counters
  bool complete = true;     // false when a malformed or truncated entry ended the parse early
  std::map<std::string, std::string, std::less<>> strings;  // byte-vector counters, up to their first NUL
  std::map<std::string, int64_t, std::less<>> longs;        // scalar 64-bit counters

  const std::string* string(std::string_view name) const;
  std::optional<int64_t> number(std::string_view name) const;
};

// nullopt (and *why set, when given) when the bytes are not an hsperfdata file of format version 2.
std::optional<PerfData> parsePerfData(std::span<const uint8_t> bytes, std::string* why = nullptr);

// Counter names discovery reads.
namespace perf_counter {
inline constexpr std::string_view kJavaCommand = "sun.rt.javaCommand";            // main class/jar + args
inline constexpr std::string_view kJavaVersion = "java.property.java.version";
inline constexpr std::string_view kVmVersion = "java.property.java.vm.version";
inline constexpr std::string_view kVmName = "java.property.java.vm.name";
inline constexpr std::string_view kJavaHome = "java.property.java.home";
inline constexpr std::string_view kVmArgs = "java.rt.vmArgs";                      // options given to the VM
inline constexpr std::string_view kVmFlags = "java.rt.vmFlags";                    // from a .hotspotrc file
inline constexpr std::string_view kCreateVmBeginTime = "sun.rt.createVmBeginTime";  // ms since the epoch
// One character per capability; the first is '1' when the attach mechanism is enabled.
inline constexpr std::string_view kJvmCapabilities = "sun.rt.jvmCapabilities";
}  // namespace perf_counter

}  // namespace jfrbpf::discovery
