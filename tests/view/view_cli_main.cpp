// Test driver: `view_cli view|convert ARGS...` runs the commands exactly as jfrbpf's main does, so the
// tests can check output, messages and exit codes without the rest of the CLI.
#include <cstdio>
#include <cstring>
#include <exception>

#include "base/error.h"
#include "userspace/command_line/arguments.h"
#include "userspace/command_line/exit_codes.h"
#include "userspace/view/convert_command.h"
#include "userspace/view/view_command.h"

int main(int argc, char** argv) {
  using namespace jfrbpf::cli;
  if (argc < 2) return kExitUsage;
  try {
    Arguments args(argc, argv, 2);
    if (std::strcmp(argv[1], "view") == 0) return runViewCommand(args);
    if (std::strcmp(argv[1], "convert") == 0) return runConvertCommand(args);
    std::fprintf(stderr, "view_cli: unknown command '%s'\n", argv[1]);
    return kExitUsage;
  } catch (const jfrbpf::Error& e) {
    std::fprintf(stderr, "jfrbpf: %s\n", e.what());
    return exitCodeFor(e.kind());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jfrbpf: unexpected error: %s\n", e.what());
    return kExitFailure;
  }
}
