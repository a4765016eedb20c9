#include "userspace/timing/method_timing_options.h"

#include "base/error.h"
#include "jvmsupport/filter/filter_argument.h"

namespace jfrbpf::timing {

std::string parseFilterOption(std::string_view option, std::string_view value) {
  filter::FilterArgumentResult parsed = filter::parseFilterArgument(option, value);
  if (!parsed.error.empty()) {
    // The filter library's messages are complete, caret line included; the CLI adds the "jfrbpf: " they start with.
    std::string_view message = parsed.error;
    constexpr std::string_view kPrefix = "jfrbpf: ";
    if (message.substr(0, kPrefix.size()) == kPrefix) message.remove_prefix(kPrefix.size());
    throw Error(std::string(message), ErrorKind::Usage);
  }
  if (parsed.filter.empty()) {
    throw Error("the " + std::string(option) + " filter '" + std::string(value) +
                    "' selects no method (give at least one target)",
                ErrorKind::Usage);
  }
  return parsed.filter.toString();
}

}  // namespace jfrbpf::timing
