#include "userspace/command_line/arguments.h"

#include "base/error.h"

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

bool Arguments::optionalValue(std::string_view longName, std::string_view whatValue, std::string& value) {
  if (done()) return false;
  const std::string& arg = args_[pos_];
  if (arg == longName) {
    value.clear();
    bareOptionalAt_ = pos_;
    bareOptionalName_ = longName;
    bareOptionalValue_ = whatValue;
    ++pos_;
    return true;
  }
  if (arg.size() > longName.size() && arg.starts_with(longName) && arg[longName.size()] == '=') {
    value = arg.substr(longName.size() + 1);
    if (value.empty()) {
      throw Error("option " + std::string(longName) + "= has no value: give " + std::string(whatValue) + " after '=' or drop the '='",
                  ErrorKind::Usage);
    }
    ++pos_;
    return true;
  }
  return false;
}

void Arguments::rejectCurrent(std::string_view command) const {
  const std::string& arg = args_[pos_];
  if (pos_ > 0 && bareOptionalAt_ == pos_ - 1 && !arg.starts_with("-")) {
    std::string name(bareOptionalName_);
    throw Error("unexpected '" + arg + "' after " + name + ": " + name + " takes " + std::string(bareOptionalValue_) +
                    " attached with '=', as in " + name + "=" + arg,
                ErrorKind::Usage);
  }
  throw Error("unknown option '" + arg + "' (see jfrbpf " + std::string(command) + " --help)", ErrorKind::Usage);
}

}  // namespace jfrbpf::cli
