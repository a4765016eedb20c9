#pragma once
// jfrbpf needs to load BPF programs, open system-wide perf events and read other processes' memory and
// files. Checked up front so a user without them gets one line naming what is missing.

namespace jfrbpf::record {

// Throws jfrbpf::Error (environment) naming the missing capabilities.
void requireProfilingPrivileges();

}  // namespace jfrbpf::record
