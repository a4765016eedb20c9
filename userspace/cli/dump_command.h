#pragma once
#include "userspace/command_line/arguments.h"

namespace jfrbpf::cli {

// `jfrbpf dump`: what a running recorder has recorded, written out without stopping it (JFR.dump's
// counterpart); returns the exit code.
int runDumpCommand(Arguments& args);

}  // namespace jfrbpf::cli
