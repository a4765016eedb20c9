#pragma once
// Per-method and per-thread aggregates of a profile, shared by the views.
#include <cstdint>
#include <string>
#include <vector>

#include "formats/convert/profile.h"

namespace jfrbpf::view {

struct MethodStat {
  uint32_t method = 0;
  uint64_t selfSamples = 0;   // samples with the method as the top frame
  uint64_t totalSamples = 0;  // samples with the method anywhere on the stack (counted once per sample)
  int64_t selfCpuNanos = 0;   // the CPU time those samples stand for
  int64_t totalCpuNanos = 0;
};

// A sample's share of a profile: of the CPU time the samples stand for when they say (jfrbpf's stand for
// unequal times: the kernel's accounting of each thread), else of the samples.
double sharePercent(const convert::Profile& profile, uint64_t samples, int64_t cpuNanos);

// "2 (7.69% of samples taken)": lost samples and their share of all taken (recorded and lost).
std::string lostShare(int64_t lost, uint64_t recorded);

// Every method that appears in a sample, by self samples then total samples, descending.
std::vector<MethodStat> methodStats(const convert::Profile& profile);

struct ThreadStat {
  uint32_t thread = 0;
  uint64_t samples = 0;
  int64_t cpuNanos = 0;
  uint32_t hottestMethod = 0;  // most self samples
  bool hasSamples = false;
};

// Threads with samples, by CPU time (where the samples say, else samples) descending.
std::vector<ThreadStat> threadStats(const convert::Profile& profile);

// The virtual threads' samples taken together, as one ThreadStat (its `thread` is kAllVirtualThreads), and how
// many virtual threads had them: a JVM may run a virtual thread per task, by the thousand.
inline constexpr uint32_t kAllVirtualThreads = UINT32_MAX;
struct VirtualThreadsStat {
  ThreadStat stat;
  size_t threads = 0;
};
VirtualThreadsStat virtualThreadsStat(const convert::Profile& profile);

// "name" or "name (tid N)" when the OS thread id is known.
std::string threadLabel(const convert::ProfileThread& thread);
// A thread's identity across the tables that name threads separately (samples, losses, off-CPU samples).
std::string threadKey(const convert::ProfileThread& thread);

// The stack ending at `node`, leaf first, at most `depth` frames: "HotWork.heavy(int) line: 3 [j]",
// then "... (N more)" when cut.
std::vector<std::string> stackLines(const convert::Profile& profile, uint32_t node, size_t depth);

}  // namespace jfrbpf::view
