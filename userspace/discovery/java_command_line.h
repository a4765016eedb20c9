#pragma once
// Reading a java launcher command line (/proc/PID/cmdline) the way the launcher does, for JVMs without
// hsperfdata (-XX:-UsePerfData): which options went to the VM and what the main class or jar is. Also the
// "-XX:+Flag / -XX:-Flag, last one wins" rule used on option lists from either source.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::discovery {

struct JavaCommandLine {
  std::vector<std::string> vmOptions;  // options before the main class/jar, less the launcher's (-cp ...)
  std::string mainClass;               // main class, jar, module[/class] or source file; "" when none given
  std::string javaCommand;             // mainClass and its arguments, space-joined (like sun.rt.javaCommand)
};

// `cmdline` is NUL-separated, argv[0] first.
JavaCommandLine parseJavaCommandLine(std::string_view cmdline);

// The value of boolean VM flag `name` set by the last "-XX:+name" / "-XX:-name" in `options`; nullopt when
// none sets it.
std::optional<bool> booleanVmFlag(const std::vector<std::string_view>& options, std::string_view name);

// The first word of a sun.rt.javaCommand value: the main class, jar or module.
std::string_view mainClassOf(std::string_view javaCommand);

}  // namespace jfrbpf::discovery
