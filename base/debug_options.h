#pragma once
// JFRBPF_DEBUG: any value makes `record` print the sampler's counters; a comma-separated list of these
// options turns on more: "cost" (time every sample in BPF), "unwatched-code" (walk as where a JVM's code
// frees cannot be watched, checking every code blob in every walk), "truncated" (print the raw frames of
// every stack that stopped before its thread's outermost frame, to find out why), "startup" (print when each step
// of the start-up ends: base/startup_marks.h).
#include <cstdlib>
#include <string_view>

namespace jfrbpf {

inline bool debugOption(std::string_view option) {
  const char* value = std::getenv("JFRBPF_DEBUG");
  if (!value) return false;
  for (std::string_view rest(value);;) {
    size_t comma = rest.find(',');
    if (rest.substr(0, comma) == option) return true;
    if (comma == std::string_view::npos) return false;
    rest.remove_prefix(comma + 1);
  }
}

}  // namespace jfrbpf
