#pragma once
// Text for the attach client's messages: what the JVM said made into one bounded line, durations in seconds.
#include <string>
#include <string_view>

#include "userspace/proc/text_fields.h"

namespace jfrbpf::attach {

inline std::string oneLine(std::string_view text, size_t maxLength = 400) {
  std::string line;
  bool pendingSeparator = false;
  for (char c : proc::trimBlanks(text)) {
    if (c == '\n') {
      pendingSeparator = true;
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) continue;
    if (pendingSeparator) {
      line += "; ";
      pendingSeparator = false;
    }
    line += c;
    if (line.size() >= maxLength) {
      line += "...";
      break;
    }
  }
  return line;
}

// "6 s", "0.5 s": durations for messages.
inline std::string inSeconds(long long milliseconds) {
  std::string text = std::to_string(milliseconds / 1000);
  if (long long tenths = (milliseconds % 1000) / 100; tenths != 0) text += "." + std::to_string(tenths);
  return text + " s";
}

}  // namespace jfrbpf::attach
