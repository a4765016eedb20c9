#pragma once
// Collapsed stacks, the input format of flamegraph.pl, speedscope and most flame graph tools: one line
// per distinct stack, root first, frames separated by ';', then a space and the weight.
#include <ostream>

#include "formats/convert/profile.h"

namespace jfrbpf::convert {

enum class Weight { kSamples, kCpuTime };

struct CollapsedOptions {
  // kCpuTime: what the samples represent, as the profile's timeKind says: nanoseconds (of CPU time, off-CPU
  // time, wall-clock time, lock wait time), or bytes for allocation samples.
  Weight weight = Weight::kSamples;
  bool threadRoots = false;  // start each stack with a "[thread name tid=N]" frame
  // Append async-profiler's frame type suffixes, which flamegraph.pl --color=java colours by:
  // _[j] JIT compiled, _[i] inlined, _[0] interpreted, _[k] kernel, and _[k] for an allocated class too, as
  // async-profiler marks the classes of jdk.ObjectAllocationSample events; a lock's class is marked the same
  // way, so that flamegraph.pl colours every class tip alike.
  bool annotate = false;
};

// Throws jfrbpf::Error (usage) for Weight::kCpuTime when the recording does not say what a sample is worth.
void writeCollapsed(const Profile& profile, const CollapsedOptions& options, std::ostream& out);

}  // namespace jfrbpf::convert
