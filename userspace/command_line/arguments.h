#pragma once
// A cursor over argv that understands "-d 10s", "-d10s", "--duration 10s", "--duration=10s" and "--".
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::cli {

class Arguments {
 public:
  Arguments(int argc, char** argv, int first) {
    for (int i = first; i < argc; ++i) args_.emplace_back(argv[i]);
  }
  explicit Arguments(std::vector<std::string> args) : args_(std::move(args)) {}

  bool done() const { return pos_ >= args_.size(); }
  const std::string& peek() const { return args_[pos_]; }
  std::string next() { return args_[pos_++]; }
  // Everything after the current position, consumed.
  std::vector<std::string> rest() {
    std::vector<std::string> out(args_.begin() + static_cast<long>(pos_), args_.end());
    pos_ = args_.size();
    return out;
  }

  // If the current argument is `shortName`/`longName`, consumes it and its value into `value`.
  // Throws jfrbpf::Error (usage) if the value is missing.
  bool option(std::string_view shortName, std::string_view longName, std::string& value);
  // A flag without value.
  bool flag(std::string_view shortName, std::string_view longName);
  // A long option whose value is optional and, as in JFR's and GNU's syntax, only ever attached with '='
  // ("--lock" or "--lock=1ms"): `value` is left empty when it was not given. `whatValue` names the value
  // ("its threshold") for the error a detached value gets ("--lock 1ms").
  bool optionalValue(std::string_view longName, std::string_view whatValue, std::string& value);
  // Throws the usage error for the current argument, which no option took: the detached value of an
  // optional-value option just before it is pointed at its '='.
  [[noreturn]] void rejectCurrent(std::string_view command) const;

 private:
  std::vector<std::string> args_;
  size_t pos_ = 0;
  // The optional-value option taken bare at args_[bareOptionalAt_], and what its value is.
  size_t bareOptionalAt_ = SIZE_MAX;
  std::string_view bareOptionalName_;
  std::string_view bareOptionalValue_;
};

}  // namespace jfrbpf::cli
