#pragma once
#include "userspace/command_line/arguments.h"

namespace jfrbpf::cli {

// `jfrbpf convert FILE --to collapsed|html|pprof [-o OUT] [options]`. Returns the process exit code;
// throws jfrbpf::Error (one line, with its ErrorKind) for bad arguments, unreadable input, unwritable output.
int runConvertCommand(Arguments& args);

}  // namespace jfrbpf::cli
