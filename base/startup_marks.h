#pragma once
// JFRBPF_DEBUG=startup: `record` prints when each step of its start-up ends, in milliseconds since the first
// mark (main's start), on which thread and after how much of its CPU time, to find what the first sample waits
// for.
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "base/debug_options.h"

namespace jfrbpf {

inline void startupMark(const char* step) {
  static const bool enabled = debugOption("startup");
  if (!enabled) return;
  static const auto start = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  timespec cpu{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  std::fprintf(stderr, "startup %7.1f ms  [%d, CPU %5.1f ms] %s\n", ms, static_cast<int>(gettid()),
               static_cast<double>(cpu.tv_sec) * 1e3 + static_cast<double>(cpu.tv_nsec) / 1e6, step);
}

}  // namespace jfrbpf
