#pragma once
// One self-contained HTML file with an interactive flame graph: search with highlighting and the matched
// share, click to zoom, thread and time-range filters, colours by frame type, tooltips. No network access:
// script, style and data are inline. The data is the call tree (frames named once each) with sample
// counts per (thread, stack) and per time bucket, so huge recordings stay small and render fast. Off-CPU and
// wall-clock profiles (Profile::timeKind) are weighted by the time their samples stand for instead, lock
// profiles by the time waited, allocation profiles by the bytes.
#include <ostream>
#include <string>

#include "formats/convert/profile.h"

namespace jfrbpf::convert {

struct FlameGraphOptions {
  std::string title = "CPU flame graph";
  uint32_t maxTimeBuckets = 240;  // the time-range filter's resolution
};

void writeFlameGraph(const Profile& profile, const FlameGraphOptions& options, std::ostream& out);

}  // namespace jfrbpf::convert
