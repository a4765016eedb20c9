#include "userspace/cli/list_command.h"

#include <unistd.h>

#include <cstdio>

#include "base/error.h"
#include "userspace/command_line/exit_codes.h"
#include "userspace/discovery/discovery.h"
#include "userspace/discovery/jvm_table.h"

namespace jfrbpf::cli {
namespace {

constexpr const char* kListHelp = R"(Usage: jfrbpf list [--json]

Lists the HotSpot JVMs on this host — in containers too — without attaching to any of them: host pid, pid
inside its namespace, user, container, JDK version, whether jfrbpf can attach its agent, and main class.
Facts come from each JVM's hsperfdata file (read through /proc/PID/root) or its command line.

Options:
  --json      one JSON object per line instead of the table
  -h, --help  this text

Run as root to see every user's JVMs. Example:
  sudo jfrbpf list
  sudo jfrbpf record -p $(sudo jfrbpf list --json | jq -r 'select(.mainClass=="com.example.App") | .pid')
)";

}  // namespace

int runListCommand(Arguments& args) {
  bool json = false;
  while (!args.done()) {
    if (args.flag("-h", "--help")) {
      std::fputs(kListHelp, stdout);
      return kExitOk;
    } else if (args.flag("", "--json")) {
      json = true;
    } else {
      throw Error("unknown option '" + args.peek() + "' (see jfrbpf list --help)", ErrorKind::Usage);
    }
  }
  discovery::DiscoveryResult result = discovery::discoverJvms();
  if (json) {
    std::fputs(discovery::formatJvmJsonLines(result.jvms).c_str(), stdout);
  } else if (result.jvms.empty()) {
    std::puts("no HotSpot JVM found");
  } else {
    std::fputs(discovery::formatJvmTable(result.jvms, discovery::outputWidth(STDOUT_FILENO)).c_str(), stdout);
  }
  // As root every process is readable; what remains are processes that exited while we looked.
  if (!result.unreadable.empty() && geteuid() != 0) {
    std::fprintf(stderr, "jfrbpf: %zu processes could not be inspected: run as root to see every JVM\n",
                 result.unreadable.size());
  }
  return kExitOk;
}

}  // namespace jfrbpf::cli
