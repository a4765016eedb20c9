#pragma once
// Runs a shell command for a test and captures its standard output (test support only).
#include <string>

namespace jfrbpf::jfr::testing {

struct CommandResult {
  int exitCode = -1;
  std::string output;  // standard output; standard error goes to the test log
};

CommandResult runCommand(const std::string& command);
// Single-quotes `text` for /bin/sh.
std::string shellQuote(const std::string& text);

}  // namespace jfrbpf::jfr::testing
