// jfrbpf: profiles JVMs (and any process) from outside with eBPF, writing JDK Flight Recorder files.
#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <exception>

#include "base/error.h"
#include "base/startup_marks.h"
#include "userspace/cli/dump_command.h"
#include "userspace/cli/list_command.h"
#include "userspace/cli/record_command.h"
#include "userspace/cli/recover_command.h"
#include "userspace/command_line/arguments.h"
#include "userspace/command_line/exit_codes.h"
#include "userspace/view/convert_command.h"
#include "userspace/view/view_command.h"

#include "build_info.h"  // JFRBPF_COMMIT, generated at build time

namespace {

constexpr const char* kHelp = R"(Usage: jfrbpf COMMAND [options]

Profiles running processes (JVMs first of all) from outside with eBPF and writes JDK Flight Recorder
(.jfr) files that `jfr`, JDK Mission Control and IntelliJ open.

Commands:
  record    sample CPU time of a process (-p PID) or of a command (-- CMD ARGS) into a .jfr file
  list      the JVMs on this host (containers included), found without attaching
  view      summaries of a recording on the terminal: hot methods, threads, lost samples, method timing
  convert   a recording as collapsed stacks, a self-contained HTML flame graph, pprof or OTLP profiles
  recover   a recording of what a recorder that was killed left in its part file
  dump      what a running recorder has recorded so far, without stopping it

Run `jfrbpf COMMAND --help` for the options of a command, `jfrbpf --version` (-V) for the version.

Example:
  sudo jfrbpf record -p $(pgrep -f MyApp) -d 30s -o app.jfr
  jfrbpf view app.jfr
  jfrbpf convert app.jfr --to html

Exit codes: 0 success; 1 failure while working; 2 bad command line;
            3 not permitted or not supported here; 4 target unusable.
)";

}  // namespace

int main(int argc, char** argv) {
  jfrbpf::startupMark("main");
  using namespace jfrbpf::cli;
  // One malloc arena for all threads: each thread (the consumer, the attaches, the dump server) would get one
  // of up to 64 MiB that keeps its own high-water mark, out of reach of the others and of --memory-limit's
  // trims; in a 48-minute `record --all` soak six of them held 190 MB of the loader's 249 MB.
  mallopt(M_ARENA_MAX, 1);
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
    std::fputs(kHelp, argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : kExitOk;
  }
  if (std::strcmp(argv[1], "-V") == 0 || std::strcmp(argv[1], "--version") == 0) {
    std::printf("jfrbpf %s (commit %s)\n", JFRBPF_VERSION, JFRBPF_COMMIT);
    return kExitOk;
  }
  try {
    Arguments args(argc, argv, 2);
    if (std::strcmp(argv[1], "record") == 0) return runRecordCommand(args);
    if (std::strcmp(argv[1], "list") == 0) return runListCommand(args);
    if (std::strcmp(argv[1], "view") == 0) return runViewCommand(args);
    if (std::strcmp(argv[1], "convert") == 0) return runConvertCommand(args);
    if (std::strcmp(argv[1], "recover") == 0) return runRecoverCommand(args);
    if (std::strcmp(argv[1], "dump") == 0) return runDumpCommand(args);
    std::fprintf(stderr, "jfrbpf: unknown command '%s' (see jfrbpf --help)\n", argv[1]);
    return kExitUsage;
  } catch (const jfrbpf::Error& e) {
    std::fprintf(stderr, "jfrbpf: %s\n", e.what());
    return exitCodeFor(e.kind());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jfrbpf: unexpected error: %s\n", e.what());
    return kExitFailure;
  }
}
