#pragma once
// pprof (gzip'd profile.proto), for `go tool pprof`, pprof.me, Grafana Pyroscope, Polar Signals and the
// like. Sample types: samples/count and the time they stand for, the default: cpu/nanoseconds, or
// off_cpu/nanoseconds or wall/nanoseconds for off-CPU and wall-clock profiles; for allocation profiles, as Go's
// heap profiles name them, alloc_objects/count (the samples: a JFR sample does not say how many objects it
// stands for) and alloc_space/bytes; for lock profiles, as Go's mutex profiles name them, contentions/count (the
// waits) and delay/nanoseconds (the time waited). Frames become functions named as
// jfrbpf shows them, with the class or library as file name and line numbers; inlined Java frames share a
// location with the compiled frame they were inlined into; native libraries get a mapping each.
#include <ostream>

#include "formats/convert/profile.h"

namespace jfrbpf::convert {

// Labels every sample with "thread" (name) and "thread id" (OS thread id). Throws jfrbpf::Error on an
// internal compression failure.
void writePprof(const Profile& profile, std::ostream& out);

}  // namespace jfrbpf::convert
