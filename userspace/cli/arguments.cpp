#include "userspace/cli/arguments.h"

#include "userspace/base/error.h"

namespace jfrbpf::cli {

bool Arguments::option(std::string_view shortName, std::string_view longName, std::string& value) {
  if (done()) return false;
  const std::string& arg = args_[pos_];
  std::string_view name;
  if (!longName.empty() && arg == longName) {
    name = longName;
  } else if (!longName.empty() && arg.size() > longName.size() && arg.starts_with(longName) &&
             arg[longName.size()] == '=') {
    value = arg.substr(longName.size() + 1);
    ++pos_;
    return true;
  } else if (!shortName.empty() && arg == shortName) {
    name = shortName;
  } else if (!shortName.empty() && arg.size() > shortName.size() && arg.starts_with(shortName) &&
             !arg.starts_with("--")) {
    value = arg.substr(shortName.size());
    ++pos_;
    return true;
  } else {
    return false;
  }
  if (pos_ + 1 >= args_.size()) {
    throw Error("option " + std::string(name) + " needs a value (see --help)", ErrorKind::Usage);
  }
  value = args_[pos_ + 1];
  pos_ += 2;
  return true;
}

bool Arguments::flag(std::string_view shortName, std::string_view longName) {
  if (done()) return false;
  const std::string& arg = args_[pos_];
  if ((!shortName.empty() && arg == shortName) || (!longName.empty() && arg == longName)) {
    ++pos_;
    return true;
  }
  return false;
}

}  // namespace jfrbpf::cli
