#pragma once
// One error type for everything a user may see: a single line that names the problem and, where there is
// one, the fix. Hot paths never throw; set-up and parsing code does.
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace jfrbpf {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "<what>: <strerror(errno)>", for failed system calls.
inline Error systemError(const std::string& what, int err = errno) {
  return Error(what + ": " + std::strerror(err));
}

}  // namespace jfrbpf
