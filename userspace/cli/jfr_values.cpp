#include "userspace/cli/jfr_values.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "base/error.h"
#include "formats/jfr/writer/durations.h"

namespace jfrbpf::cli {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Matching is exact on the whole suffix.
const jfr::DurationUnit* findUnit(std::string_view name) {
  for (const jfr::DurationUnit& unit : jfr::kDurationUnits) {
    if (unit.name == name) return &unit;
  }
  return nullptr;
}

// Splits "12.5 ms" into 12.5 and "ms"; false when the number part is malformed.
bool splitNumber(std::string_view text, double& number, std::string_view& suffix) {
  size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  if (end == 0) return false;
  std::string digits(text.substr(0, end));
  char* parsedEnd = nullptr;
  number = std::strtod(digits.c_str(), &parsedEnd);
  if (parsedEnd != digits.c_str() + digits.size() || !std::isfinite(number)) return false;
  suffix = trim(text.substr(end));
  return true;
}

}  // namespace

int64_t parseDuration(std::string_view text, std::string_view option, bool allowInfinity) {
  std::string_view value = trim(text);
  if (allowInfinity && value == "infinity") return std::numeric_limits<int64_t>::max();
  double number = 0;
  std::string_view suffix;
  const jfr::DurationUnit* unit = nullptr;
  if (splitNumber(value, number, suffix)) unit = findUnit(suffix);
  if (!unit) {
    throw Error("invalid " + std::string(option) + " '" + std::string(text) +
                "': expected a number and a unit (ns, us, ms, s, m, h, d), e.g. 10ms or 30 s",
                ErrorKind::Usage);
  }
  double nanos = number * static_cast<double>(unit->nanos);
  if (nanos >= 9.2e18) throw Error("invalid " + std::string(option) + " '" + std::string(text) + "': too large", ErrorKind::Usage);
  return static_cast<int64_t>(std::llround(nanos));
}

double parseRate(std::string_view text, std::string_view option) {
  std::string_view value = trim(text);
  size_t slash = value.find('/');
  double count = 0;
  std::string_view rest;
  const jfr::DurationUnit* unit = nullptr;
  if (slash != std::string_view::npos && splitNumber(trim(value.substr(0, slash)), count, rest) && rest.empty()) {
    unit = findUnit(trim(value.substr(slash + 1)));
  }
  if (!unit || count <= 0) {
    throw Error("invalid " + std::string(option) + " '" + std::string(text) +
                "': expected events per time unit, e.g. 500/s or 10/ms",
                ErrorKind::Usage);
  }
  return count * 1e9 / static_cast<double>(unit->nanos);
}

uint64_t parseSize(std::string_view text, std::string_view option) {
  double number = 0;
  std::string_view suffix;
  uint64_t scale = 0;
  if (splitNumber(trim(text), number, suffix)) {
    std::string unit;
    for (char c : suffix) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (unit.size() == 2 && unit[1] == 'b') unit.pop_back();  // "MB" as JFR's "M"
    if (unit.empty() || unit == "b") scale = 1;
    if (unit == "k") scale = 1ull << 10;
    if (unit == "m") scale = 1ull << 20;
    if (unit == "g") scale = 1ull << 30;
  }
  if (scale == 0 || number <= 0 || number * static_cast<double>(scale) >= 9.2e18) {
    throw Error("invalid " + std::string(option) + " '" + std::string(text) +
                    "': expected a size in bytes with an optional unit (k, m, g), e.g. 100m or 2g",
                ErrorKind::Usage);
  }
  return static_cast<uint64_t>(std::llround(number * static_cast<double>(scale)));
}

}  // namespace jfrbpf::cli
