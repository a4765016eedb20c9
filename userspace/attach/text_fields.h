#pragma once
// Small, allocation-light helpers for the line/field text formats of /proc and of attach replies.
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::attach {

inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

inline std::string_view trimSpace(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Whitespace-separated fields, at most maxFields of them (the rest of the text is ignored).
inline std::vector<std::string_view> splitFields(std::string_view s, size_t maxFields) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < s.size() && fields.size() < maxFields) {
    while (i < s.size() && isSpace(s[i])) ++i;
    size_t start = i;
    while (i < s.size() && !isSpace(s[i])) ++i;
    if (i > start) fields.push_back(s.substr(start, i - start));
  }
  return fields;
}

// Calls fn(line) for each '\n'-terminated line (and a final unterminated one), without the '\n'.
template <typename Fn>
void forEachLine(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    size_t newline = text.find('\n');
    fn(text.substr(0, newline));
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
}

// The whole string must be a decimal number (an optional leading '-' for signed types) that fits in T.
template <typename T>
std::optional<T> parseDecimal(std::string_view s) {
  T value{};
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 10);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// Text from a target made fit for a one-line error message: lines joined with "; ", control characters
// dropped, cut at maxLength.
inline std::string oneLine(std::string_view text, size_t maxLength = 400) {
  std::string line;
  bool pendingSeparator = false;
  for (char c : trimSpace(text)) {
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
