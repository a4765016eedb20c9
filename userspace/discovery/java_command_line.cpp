#include "userspace/discovery/java_command_line.h"

#include <algorithm>
#include <array>

#include "userspace/proc/nul_separated.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::discovery {
namespace {

// Launcher options whose value is the next argument (java --help, JDK 8 to 25).
constexpr std::array<std::string_view, 14> kOptionsWithValue{
    "-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path", "--add-modules",
    "--limit-modules", "--add-reads", "--add-exports", "--add-opens", "--patch-module", "--enable-native-access",
    "--source"};

std::string joinFrom(const std::vector<std::string_view>& args, size_t first) {
  std::string joined;
  for (size_t i = first; i < args.size(); ++i) {
    if (i > first) joined += ' ';
    joined += args[i];
  }
  return joined;
}

}  // namespace

JavaCommandLine parseJavaCommandLine(std::string_view cmdline) {
  JavaCommandLine parsed;
  std::vector<std::string_view> args = proc::splitAtNul(cmdline);
  for (size_t i = 1; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "-jar" || arg == "-m" || arg == "--module") {
      if (i + 1 < args.size()) {
        parsed.mainClass = args[i + 1];
        parsed.javaCommand = joinFrom(args, i + 1);
      }
      return parsed;
    }
    if (arg.starts_with("--module=")) {
      parsed.mainClass = arg.substr(9);
      parsed.javaCommand = parsed.mainClass;
      if (i + 1 < args.size()) parsed.javaCommand += ' ' + joinFrom(args, i + 1);
      return parsed;
    }
    if (arg.empty() || arg.front() == '@') continue;  // an @argfile's contents are not in cmdline
    if (arg.front() != '-') {
      parsed.mainClass = arg;
      parsed.javaCommand = joinFrom(args, i);
      return parsed;
    }
    // Class and module path options are the launcher's, not the VM's: skip them with their value.
    if (std::find(kOptionsWithValue.begin(), kOptionsWithValue.end(), arg) != kOptionsWithValue.end()) {
      ++i;
      continue;
    }
    parsed.vmOptions.emplace_back(arg);
  }
  return parsed;
}

std::optional<bool> booleanVmFlag(const std::vector<std::string_view>& options, std::string_view name) {
  std::optional<bool> value;
  for (std::string_view option : options) {
    if (!option.starts_with("-XX:") || option.size() != 5 + name.size() || option.substr(5) != name) continue;
    if (option[4] == '+') value = true;
    if (option[4] == '-') value = false;
  }
  return value;
}

std::string_view mainClassOf(std::string_view javaCommand) {
  auto words = proc::splitFields(javaCommand, 1);
  return words.empty() ? std::string_view() : words.front();
}

}  // namespace jfrbpf::discovery
