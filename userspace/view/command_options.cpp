#include "userspace/view/command_options.h"


#include "base/error.h"

namespace jfrbpf::cli {

bool takeOption(Arguments& args, std::string_view shortName, std::string_view longName, std::string& value,
                std::string_view command) {
  if (args.done()) return false;
  const std::string& arg = args.peek();
  bool separateValue = false;
  if (!longName.empty() && arg == longName) {
    separateValue = true;
  } else if (!longName.empty() && arg.starts_with(longName) && arg.size() > longName.size() &&
             arg[longName.size()] == '=') {
    value = arg.substr(longName.size() + 1);
  } else if (!shortName.empty() && arg == shortName) {
    separateValue = true;
  } else if (!shortName.empty() && arg.starts_with(shortName) && !arg.starts_with("--")) {
    value = arg.substr(shortName.size());
  } else {
    return false;
  }
  std::string name = args.next();
  if (separateValue) {
    if (args.done()) {
      throw Error("option " + name + " needs a value (see jfrbpf " + std::string(command) + " --help)",
                  ErrorKind::Usage);
    }
    value = args.next();
  }
  return true;
}

bool takeFlag(Arguments& args, std::string_view shortName, std::string_view longName) {
  if (args.done()) return false;
  const std::string& arg = args.peek();
  if ((shortName.empty() || arg != shortName) && (longName.empty() || arg != longName)) return false;
  args.next();
  return true;
}

bool sampleOption(Arguments& args, convert::SampleOptions& options, std::string_view command) {
  std::string value;
  if (takeOption(args, "", "--thread", value, command)) {
    options.filter.thread = value;
  } else if (takeOption(args, "", "--method", value, command)) {
    options.filter.method = value;
  } else if (takeOption(args, "", "--event", value, command)) {
    options.eventName = value;
  } else if (takeOption(args, "", "--context", value, command)) {
    if (value.find('=') == std::string::npos || value.front() == '=') {
      throw Error("invalid --context '" + value + "': give KEY=VALUE, e.g. http.route=/checkout or trace=" +
                      std::string(32, '0').replace(0, 4, "4bf9"),
                  ErrorKind::Usage);
    }
    options.filter.context = value;
  } else if (takeOption(args, "", "--by", value, command)) {
    options.filter.contextFrame = value;
  } else {
    return false;
  }
  return true;
}

void unknownArgument(const std::string& argument, std::string_view command) {
  if (argument.starts_with("-")) {
    throw Error("unknown option '" + argument + "' (see jfrbpf " + std::string(command) + " --help)", ErrorKind::Usage);
  }
  throw Error("unexpected argument '" + argument + "' (see jfrbpf " + std::string(command) + " --help)",
              ErrorKind::Usage);
}

}  // namespace jfrbpf::cli
