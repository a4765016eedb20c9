#pragma once
// Counts as people read them, in what jfrbpf prints (the summary, the progress line, the views).
#include <cstddef>
#include <cstdint>
#include <string>

namespace jfrbpf {

// 1234567 -> "1,234,567"
inline std::string groupThousands(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// 268435456 -> "256 MiB", rounded to the nearest.
inline std::string mebibytes(size_t bytes) { return std::to_string((bytes + (size_t{1} << 19)) >> 20) + " MiB"; }

}  // namespace jfrbpf
