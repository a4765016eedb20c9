#pragma once
// One error type for everything a user may see: a single line that names the problem and, where there is
// one, the fix. Hot paths never throw; set-up and parsing code does.
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace jfrbpf {

// What kind of problem it is decides the process exit code (see userspace/command_line/exit_codes.h).
enum class ErrorKind {
  Runtime,      // something failed while working
  Usage,        // bad command line
  Environment,  // privileges, kernel features, tools missing
  Target,       // no such process, it exited, command not found
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::Runtime)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

// "<what>: <strerror(errno)>", for failed system calls.
inline Error systemError(const std::string& what, int err = errno) {
  return Error(what + ": " + std::strerror(err));
}

}  // namespace jfrbpf
