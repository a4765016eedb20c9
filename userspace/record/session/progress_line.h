#pragma once
// The live status line on a terminal: elapsed time, samples and lost, rewritten in place once a second.
#include <cstdint>
#include <string>

#include "base/number_text.h"

namespace jfrbpf::record {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled, std::string what) : enabled_(enabled), what_(std::move(what)) {}
  ~ProgressLine() { clear(); }
  void update(double elapsedSeconds, double totalSeconds /* 0 = open-ended */, uint64_t samples, uint64_t lost);
  void clear();

 private:
  bool enabled_;
  bool shown_ = false;
  std::string what_;
};

}  // namespace jfrbpf::record
