#pragma once
// A cursor over argv that understands "-d 10s", "-d10s", "--duration 10s", "--duration=10s" and "--".
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

 private:
  std::vector<std::string> args_;
  size_t pos_ = 0;
};

}  // namespace jfrbpf::cli
