#pragma once
#include "userspace/cli/arguments.h"

namespace jfrbpf::cli {

// `jfrbpf record ...`; returns the process exit code.
int runRecordCommand(Arguments& args);

}  // namespace jfrbpf::cli
