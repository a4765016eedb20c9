#pragma once
// Splitting and number parsing for the line/field formats of /proc, also used on other text a target hands
// us (attach replies, JVM options, cgroup lines, release files). The text can be influenced by the process
// it describes (its name, its mapped file names), so nothing here assumes well-formed input.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace jfrbpf::proc {

inline bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

inline std::string_view trimBlanks(std::string_view s) {
  while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
  return s;
}

// Whitespace-separated fields; at most maxFields (the rest of the text is ignored).
inline std::vector<std::string_view> splitFields(std::string_view s, size_t maxFields = SIZE_MAX) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < s.size() && fields.size() < maxFields) {
    while (i < s.size() && isBlank(s[i])) ++i;
    size_t start = i;
    while (i < s.size() && !isBlank(s[i])) ++i;
    if (i > start) fields.push_back(s.substr(start, i - start));
  }
  return fields;
}

// Calls fn(line) for every '\n'-separated line, the last one also when it has no '\n'.
template <typename Fn>
void forEachLine(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    size_t newline = text.find('\n');
    fn(text.substr(0, newline));
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
}

// The whole of `s` is a number in `base` that fits in T (a leading '-' only for signed T).
template <typename T>
std::optional<T> parseNumber(std::string_view s, int base = 10) {
  T value{};
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

inline bool isLowerHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return !s.empty();
}

}  // namespace jfrbpf::proc
