#include "bench/sampler/run_windows.h"

#include <thread>

namespace jfrbpf::bench {

void sleepFor(std::chrono::milliseconds duration) { std::this_thread::sleep_for(duration); }

std::vector<double> runTimePerRun(const ProgramProbe& program, int windows, std::chrono::milliseconds window,
                                  const PassTime& pass) {
  std::vector<double> values;
  ProgramTotals last = program.totals();
  for (int i = 0; i < windows; ++i) {
    pass(window);
    ProgramTotals now = program.totals();
    if (now.runCount > last.runCount) {
      values.push_back(static_cast<double>(now.runTimeNs - last.runTimeNs) /
                       static_cast<double>(now.runCount - last.runCount));
    }
    last = now;
  }
  return values;
}

}  // namespace jfrbpf::bench
