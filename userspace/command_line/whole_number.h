#pragma once
// Whole-number option values of every command.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.h"

namespace jfrbpf::cli {

// A whole number in [min, max]; throws a usage error naming `option` and `command`.
inline uint64_t parseWholeNumber(const std::string& text, std::string_view option, uint64_t min, uint64_t max,
                                 std::string_view command) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw Error("invalid " + std::string(option) + " '" + text + "': expected a whole number from " +
                    std::to_string(min) + " to " + std::to_string(max) + " (see jfrbpf " + std::string(command) +
                    " --help)",
                ErrorKind::Usage);
  }
  return value;
}

}  // namespace jfrbpf::cli
