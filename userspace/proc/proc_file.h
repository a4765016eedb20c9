#pragma once
// Reading a whole /proc/PID file for parsing, with the process's exit told apart from every other failure:
// a process may exit at any moment while we look at it, and callers treat that as normal.
#include <sys/types.h>

#include <string>

#include "base/error.h"

namespace jfrbpf::proc {

// Thrown when the process a /proc read is about does not exist (any more).
class ProcessGoneError : public Error {
 public:
  using Error::Error;
};

// The whole of /proc/<pid>/<entry>. Throws ProcessGoneError when the process is gone, jfrbpf::Error when the
// file cannot be read or is longer than `limit` bytes (refused rather than cut off in the middle of a line).
std::string readProcFile(pid_t pid, const char* entry, size_t limit);

}  // namespace jfrbpf::proc
