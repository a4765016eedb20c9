#include "userspace/view/text_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string_view>
#include <system_error>

namespace jfrbpf::view {

// As `jfr view` prints a share (Java's %.2f of fraction * 100): the shortest decimal that reads back as the
// value, rounded half up, so that 125 of 160 is 78.13% in both where printf's %.2f gives 78.12%.
std::string percent(double part, double whole) {
  const double value = whole > 0 ? part / whole * 100 : 0.0;
  char digits[64];
  const auto [end, error] = std::to_chars(digits, digits + sizeof(digits), std::fabs(value), std::chars_format::fixed);
  if (error != std::errc()) return "?%";
  const std::string_view text(digits, static_cast<size_t>(end - digits));
  const size_t point = std::min(text.find('.'), text.size());
  int64_t hundredths = 0;
  for (char c : text.substr(0, point)) hundredths = hundredths * 10 + (c - '0');
  const std::string_view fraction = point < text.size() ? text.substr(point + 1) : std::string_view();
  for (size_t i = 0; i < 2; ++i) hundredths = hundredths * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
  if (fraction.size() > 2 && fraction[2] >= '5') ++hundredths;
  char out[40];
  std::snprintf(out, sizeof(out), "%s%lld.%02lld%%", value < 0 && hundredths > 0 ? "-" : "",
                static_cast<long long>(hundredths / 100), static_cast<long long>(hundredths % 100));
  return out;
}

namespace {

constexpr int64_t kMicro = 1'000, kSecond = 1'000'000'000, kMinute = 60 * kSecond, kHour = 60 * kMinute,
                  kDay = 24 * kHour;

int digitCount(int64_t value) {
  int digits = 1;
  while (value >= 10) {
    value /= 10;
    ++digits;
  }
  return digits;
}

int64_t powerOfTen(int exponent) {
  int64_t out = 1;
  for (int i = 0; i < exponent; ++i) out *= 10;
  return out;
}

// Java's Math.round: half up.
int64_t roundToMultiple(int64_t value, int64_t unit) {
  return (value / unit + ((value % unit) * 2 >= unit ? 1 : 0)) * unit;
}

int64_t roundLikeJfr(int64_t nanos) {
  if (nanos < kMicro) return nanos;
  if (nanos < kSecond) return roundToMultiple(nanos, powerOfTen(digitCount(nanos) - 3));
  if (nanos < kMinute) {
    int64_t seconds = nanos / kSecond;
    int64_t millis = nanos % kSecond / 1'000'000;
    return seconds * kSecond + roundToMultiple(millis, powerOfTen(digitCount(seconds))) * 1'000'000;
  }
  if (nanos < kHour) return (nanos + kSecond / 2) / kSecond * kSecond;
  if (nanos < kDay) return (nanos + kMinute / 2) / kMinute * kMinute;
  if (nanos > INT64_MAX - kHour) return nanos / kHour * kHour;  // no room to round up
  return (nanos + kHour / 2) / kHour * kHour;
}

}  // namespace

std::string jfrViewTimespan(int64_t nanos, int precision) {
  if (nanos == 0) return "0 s";
  if (nanos < 0) return "-" + jfrViewTimespan(nanos == INT64_MIN ? INT64_MAX : -nanos, precision);
  int64_t rounded = roundLikeJfr(nanos);
  char text[64];
  if (rounded < kSecond) {
    std::snprintf(text, sizeof(text), "%.*f ms", precision, static_cast<double>(rounded) / 1e6);
  } else if (rounded < kMinute) {
    double seconds = static_cast<double>(rounded / kSecond) + static_cast<double>(rounded % kSecond / 1'000'000) / 1e3;
    std::snprintf(text, sizeof(text), "%.*f s", precision, seconds);
  } else if (rounded < kHour) {
    std::snprintf(text, sizeof(text), "%lld m %lld s", static_cast<long long>(rounded / kMinute),
                  static_cast<long long>(rounded % kMinute / kSecond));
  } else if (rounded < kDay) {
    std::snprintf(text, sizeof(text), "%lld h %lld m", static_cast<long long>(rounded / kHour),
                  static_cast<long long>(rounded % kHour / kMinute));
  } else {
    std::snprintf(text, sizeof(text), "%lld d %lld h", static_cast<long long>(rounded / kDay),
                  static_cast<long long>(rounded % kDay / kHour));
  }
  return text;
}

std::string humanDuration(int64_t nanos) {
  char text[48];
  double v = static_cast<double>(nanos);
  if (nanos < 0) return "-" + humanDuration(nanos == INT64_MIN ? INT64_MAX : -nanos);
  if (nanos < 1'000) {
    std::snprintf(text, sizeof(text), "%lld ns", static_cast<long long>(nanos));
  } else if (nanos < 1'000'000) {
    std::snprintf(text, sizeof(text), "%.1f us", v / 1e3);
  } else if (nanos < 1'000'000'000) {
    std::snprintf(text, sizeof(text), "%.2f ms", v / 1e6);
  } else if (nanos < 60'000'000'000) {
    std::snprintf(text, sizeof(text), "%.2f s", v / 1e9);
  } else {
    int64_t seconds = nanos / 1'000'000'000;
    if (seconds < 3600) {
      std::snprintf(text, sizeof(text), "%lld min %lld s", static_cast<long long>(seconds / 60),
                    static_cast<long long>(seconds % 60));
    } else {
      std::snprintf(text, sizeof(text), "%lld h %lld min", static_cast<long long>(seconds / 3600),
                    static_cast<long long>(seconds / 60 % 60));
    }
  }
  return text;
}

std::string humanBytes(uint64_t bytes) {
  char text[32];
  double v = static_cast<double>(bytes);
  if (bytes < 1000) {
    std::snprintf(text, sizeof(text), "%llu bytes", static_cast<unsigned long long>(bytes));
  } else if (bytes < 1000 * 1000) {
    std::snprintf(text, sizeof(text), "%.1f kB", v / 1e3);
  } else if (bytes < 1000ull * 1000 * 1000) {
    std::snprintf(text, sizeof(text), "%.1f MB", v / 1e6);
  } else {
    std::snprintf(text, sizeof(text), "%.2f GB", v / 1e9);
  }
  return text;
}

std::string localDateTime(int64_t epochNanos) {
  time_t seconds = static_cast<time_t>(epochNanos / 1'000'000'000);
  tm local{};
  if (!localtime_r(&seconds, &local)) return "?";
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &local);
  return text;
}

size_t displayWidth(std::string_view text) {
  size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;  // count code points, not continuation bytes
  return width;
}

std::string fitWidth(std::string_view text, size_t width) {
  if (displayWidth(text) <= width) return std::string(text);
  if (width <= 3) return std::string(width, '.');
  std::string out;
  size_t columns = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    bool starts = (c & 0xC0) != 0x80;
    if (starts && columns == width - 3) break;
    out += text[i];
    columns += starts;
  }
  return out + "...";
}

}  // namespace jfrbpf::view
