#pragma once
#include "userspace/command_line/arguments.h"

namespace jfrbpf::cli {

// `jfrbpf list`: the JVMs on this host, found without attaching to any of them; returns the exit code.
int runListCommand(Arguments& args);

}  // namespace jfrbpf::cli
