#pragma once
#include "userspace/command_line/arguments.h"

namespace jfrbpf::cli {

// `jfrbpf view FILE [VIEW] [options]`: terminal tables of a recording. Returns the process exit code;
// throws jfrbpf::Error (one line, with its ErrorKind) for bad arguments and unreadable files.
int runViewCommand(Arguments& args);

}  // namespace jfrbpf::cli
