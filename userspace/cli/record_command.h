#pragma once
#include "userspace/command_line/arguments.h"

namespace jfrbpf::cli {

// `jfrbpf record ...`; returns the process exit code.
int runRecordCommand(Arguments& args);

}  // namespace jfrbpf::cli
