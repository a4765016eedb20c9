#pragma once
// jfrbpf needs to load BPF programs, open system-wide perf events and read other processes' memory and
// files. Checked up front so a user without them gets one line naming what is missing.

#include <sys/resource.h>

namespace jfrbpf::record {

// Throws jfrbpf::Error (environment) naming the missing capabilities.
void requireProfilingPrivileges();

// Per-thread sampling holds one perf event descriptor per thread, and a host of JVMs has thousands of
// threads: raises the soft limit on open files to the hard one (lifting the hard one too when allowed).
// Returns the limit as it was, for the programs jfrbpf launches.
rlimit raiseOpenFileLimit();

}  // namespace jfrbpf::record
