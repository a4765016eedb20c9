#include "userspace/attach/jvm_options.h"

#include <algorithm>
#include <array>

#include "userspace/proc/nul_separated.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::attach {
namespace {

// Launcher options whose value is the next argument (java --help, JDK 9+).
constexpr std::array<std::string_view, 14> kOptionsWithSeparateValue = {"-cp",
                                                                        "-classpath",
                                                                        "--class-path",
                                                                        "-p",
                                                                        "--module-path",
                                                                        "--upgrade-module-path",
                                                                        "--add-modules",
                                                                        "--enable-native-access",
                                                                        "--limit-modules",
                                                                        "--add-reads",
                                                                        "--add-exports",
                                                                        "--add-opens",
                                                                        "--patch-module",
                                                                        "--source"};

// After these the next argument names what to run and everything behind it belongs to the program.
constexpr std::array<std::string_view, 3> kOptionsNamingTheProgram = {"-jar", "-m", "--module"};

bool contains(auto const& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

std::vector<std::string_view> splitOptions(std::string_view text) { return proc::splitFields(text, text.size()); }

std::vector<std::string_view> launcherJvmOptions(std::string_view cmdline) {
  std::vector<std::string_view> args = proc::splitAtNul(cmdline);
  std::vector<std::string_view> options;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg.empty() || arg.front() != '-' || contains(kOptionsNamingTheProgram, arg)) break;
    options.push_back(arg);
    if (contains(kOptionsWithSeparateValue, arg)) ++i;
  }
  return options;
}

std::optional<bool> lastBooleanFlag(const std::vector<std::string_view>& options, std::string_view name) {
  std::optional<bool> value;
  for (std::string_view option : options) {
    if (option.size() != 5 + name.size() || !option.starts_with("-XX:") || option.substr(5) != name) continue;
    if (option[4] == '+') value = true;
    if (option[4] == '-') value = false;
  }
  return value;
}

}  // namespace jfrbpf::attach
