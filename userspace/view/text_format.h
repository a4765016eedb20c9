#pragma once
// Number, time and size formats of the terminal views, following `jfr view` where it has one.
#include <cstdint>
#include <string>
#include <string_view>

#include "base/number_text.h"

namespace jfrbpf::view {

std::string percent(double part, double whole);  // "59.84%"; "0.00%" when whole is 0
// A timespan as `jfr view` shows it with FORMAT ms-precision:N: rounded to three significant digits, then
// "0.049600 ms" below a second, "1.500000 s" below a minute, "2 m 5 s", "3 h 10 m", "2 d 1 h" beyond.
std::string jfrViewTimespan(int64_t nanos, int precision = 6);
std::string humanDuration(int64_t nanos);       // "850 ns", "12.3 us", "4.56 ms", "3.72 s", "2 min 5 s"
std::string humanBytes(uint64_t bytes);         // "243.7 kB"
std::string localDateTime(int64_t epochNanos);  // "2026-11-21 22:48:52"
// Cuts `text` to `width` display columns (UTF-8 aware), ending in "..." when cut.
std::string fitWidth(std::string_view text, size_t width);
size_t displayWidth(std::string_view text);

}  // namespace jfrbpf::view
