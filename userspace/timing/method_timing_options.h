#pragma once
// What the user asked of method timing and tracing (jfrbpf record --method-timing/--method-trace), in the
// form every part of a recording passes along.
#include <cstdint>
#include <string>
#include <string_view>

namespace jfrbpf::timing {

struct MethodTimingOptions {
  std::string timingFilter;  // canonical JEP 520 filter for jdk.MethodTiming; empty: none
  std::string traceFilter;   // for jdk.MethodTrace; empty: none
  int64_t traceThresholdNs = 0;  // JFR's `threshold`: shorter traced invocations are not recorded
  int64_t timingPeriodNs = 0;    // JFR's `period`; 0 is "endChunk": once, when the recording ends

  bool enabled() const { return !timingFilter.empty() || !traceFilter.empty(); }
};

// The canonical filter text of a --method-timing / --method-trace value: a JEP 520 filter, or @FILE holding
// one. Throws jfrbpf::Error (usage) with the filter's own message, a caret under the offending character,
// or when the filter selects nothing.
std::string parseFilterOption(std::string_view option, std::string_view value);

}  // namespace jfrbpf::timing
