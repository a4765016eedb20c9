#include "bench/sampler/distribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace jfrbpf::bench {
namespace {

double percentile(const std::vector<double>& sorted, double fraction) {
  double position = fraction * static_cast<double>(sorted.size() - 1);
  auto below = static_cast<size_t>(std::floor(position));
  size_t above = std::min(below + 1, sorted.size() - 1);
  double weight = position - static_cast<double>(below);
  return sorted[below] * (1 - weight) + sorted[above] * weight;
}

}  // namespace

Distribution distributionOf(std::vector<double> values) {
  Distribution d;
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.count = values.size();
  d.min = values.front();
  d.max = values.back();
  d.median = percentile(values, 0.5);
  d.p10 = percentile(values, 0.1);
  d.p90 = percentile(values, 0.9);
  return d;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

std::string describe(const Distribution& d, int decimals, std::string_view unit) {
  if (d.count == 0) return "no data";
  std::string separator = unit.empty() || unit == "%" ? "" : " ";
  std::string text = fixed(d.median, decimals) + separator + std::string(unit);
  if (d.count == 1) return text + " (n=1)";
  text += " (" + fixed(d.min, decimals) + "–" + fixed(d.max, decimals);
  if (d.count >= 10) text += ", p10–p90 " + fixed(d.p10, decimals) + "–" + fixed(d.p90, decimals);
  return text + ", n=" + std::to_string(d.count) + ")";
}

}  // namespace jfrbpf::bench
