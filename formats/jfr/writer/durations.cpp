#include "formats/jfr/writer/durations.h"

#include <limits>

namespace jfrbpf::jfr {

std::string formatDuration(int64_t nanos) {
  if (nanos == std::numeric_limits<int64_t>::max()) return "infinity";
  // The largest unit that divides exactly.
  for (auto it = kDurationUnits.rbegin(); it != kDurationUnits.rend(); ++it) {
    if (nanos != 0 && nanos % it->nanos == 0) return std::to_string(nanos / it->nanos) + " " + std::string(it->name);
  }
  return std::to_string(nanos) + " ns";
}

}  // namespace jfrbpf::jfr
