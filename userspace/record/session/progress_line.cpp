#include "userspace/record/session/progress_line.h"

#include <cstdio>

namespace jfrbpf::record {

void ProgressLine::update(double elapsedSeconds, double totalSeconds, uint64_t samples, uint64_t lost) {
  if (!enabled_) return;
  char when[64];
  if (totalSeconds > 0) {
    std::snprintf(when, sizeof(when), "%.0f/%.0f s", elapsedSeconds, totalSeconds);
  } else {
    std::snprintf(when, sizeof(when), "%.0f s (Ctrl-C to stop)", elapsedSeconds);
  }
  std::fprintf(stderr, "\r\033[Kjfrbpf: recording %s | %s | %s samples | %s lost", what_.c_str(), when,
               groupThousands(samples).c_str(), groupThousands(lost).c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace jfrbpf::record
