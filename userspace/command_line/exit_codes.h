#pragma once
// Documented in `jfrbpf --help` and README.md; scripts rely on them.
#include "base/error.h"

namespace jfrbpf::cli {

enum ExitCode : int {
  kExitOk = 0,           // the recording (or command) finished and its output is complete
  kExitFailure = 1,      // something failed while working (I/O error, unexpected kernel error)
  kExitUsage = 2,        // bad command line: unknown option, invalid value
  kExitEnvironment = 3,  // not permitted or not supported here: privileges, BTF, BPF, perf events
  kExitTarget = 4,       // the target is unusable: no such process, exited at start-up, command not found
};

inline int exitCodeFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage: return kExitUsage;
    case ErrorKind::Environment: return kExitEnvironment;
    case ErrorKind::Target: return kExitTarget;
    case ErrorKind::Runtime: return kExitFailure;
  }
  return kExitFailure;
}

}  // namespace jfrbpf::cli
