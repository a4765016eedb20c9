#pragma once
#include "userspace/command_line/arguments.h"

namespace jfrbpf::cli {

// `jfrbpf recover PARTFILE`: a recording of what a recorder that died left in its part file; returns the
// exit code.
int runRecoverCommand(Arguments& args);

}  // namespace jfrbpf::cli
