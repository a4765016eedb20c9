#pragma once
// Recovering the JVM's own -XX flags from outside. The hsperfdata "java.rt.vmArgs" counter is authoritative;
// when a JVM runs without hsperfdata (-XX:-UsePerfData), the launcher command line and the environment
// variables the JVM reads options from are a best-effort fallback.
#include <optional>
#include <string_view>
#include <vector>

namespace jfrbpf::attach {

// Blank-separated options (java.rt.vmArgs, JAVA_TOOL_OPTIONS, ...).
std::vector<std::string_view> splitOptions(std::string_view text);

// The JVM options of a java launcher command line (/proc/PID/cmdline, NUL-separated): everything between
// argv[0] and the main class, -jar file or -m module, so program arguments never count as JVM flags.
std::vector<std::string_view> launcherJvmOptions(std::string_view cmdline);

// A boolean -XX flag as HotSpot resolves repeated settings: the last "-XX:+Name" / "-XX:-Name" wins.
std::optional<bool> lastBooleanFlag(const std::vector<std::string_view>& options, std::string_view name);

}  // namespace jfrbpf::attach
