#pragma once
// BPF run time per program run, measured in consecutive windows of the kernel's bpf_stats.
#include <chrono>
#include <functional>
#include <vector>

#include "bench/sampler/bpf_probe.h"

namespace jfrbpf::bench {

// Lets `duration` pass (sleeping, or serving a ring buffer meanwhile).
using PassTime = std::function<void(std::chrono::milliseconds duration)>;

void sleepFor(std::chrono::milliseconds duration);

// Mean run time in nanoseconds per run of `program` in each of `windows` consecutive windows of `window`;
// a window in which the program did not run gives no value.
std::vector<double> runTimePerRun(const ProgramProbe& program, int windows, std::chrono::milliseconds window,
                                  const PassTime& pass = sleepFor);

}  // namespace jfrbpf::bench
