#pragma once
// `jfrbpf record -p PID...` and launch mode (`jfrbpf record -- CMD ARGS...`): the processes the user named,
// or the one it starts, into one file (or --rotate's series of files).
#include "userspace/record/config.h"
#include "userspace/record/summary.h"

namespace jfrbpf::record {

// Runs the whole recording. Throws jfrbpf::Error for anything that prevents a useful recording (in which
// case no output file and no attached program is left behind).
RecordSummary recordProcesses(const RecordConfig& config);

}  // namespace jfrbpf::record
