#include "userspace/view/view_command.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "base/error.h"
#include "userspace/command_line/exit_codes.h"
#include "userspace/view/command_options.h"
#include "userspace/view/recording_digest.h"
#include "userspace/view/views.h"

namespace jfrbpf::cli {
namespace {

constexpr const char* kViewHelp = R"help(Usage: jfrbpf view [options] FILE [VIEW]

Shows a JDK Flight Recorder file (written by jfrbpf or by the JDK itself) as tables in the terminal.
CPU samples are jdk.CPUTimeSample events when the file has them, else jdk.ExecutionSample.

Views:
{VIEWS}
Options:
      --thread NAME|TID   only this thread: its Java or OS name, or its OS thread id
      --method TEXT       only samples with a frame whose name contains TEXT, and only timed or
                          traced methods whose name contains TEXT
      --event NAME        the sample event to use, e.g. jdk.ExecutionSample or jdk.NativeMethodSample
      --context KEY=VALUE only samples taken in this OpenTelemetry context: an attribute's value
                          (http.route=/checkout), or trace=ID or span=ID in hex
      --by KEY            each stack starts with a frame naming its value of KEY: trace, span or an
                          attribute (http.route), so that stacks divide by it
      --top N             rows per table (default 25, as jfr view)
      --stack-depth N     frames shown per stack in method-traces (default 5)
      --width N           columns of output (default: the terminal's width, else 120)
  -h, --help              this text

Frames: Java methods as `jfr` prints them (java.lang.String.indexOf(int)); native code as
"symbol (library)", kernel code as "symbol (kernel)". In stacks, [j] JIT compiled, [i] inlined,
[int] interpreted, [n] native, [k] kernel.

Examples:
  jfrbpf view app.jfr
  jfrbpf view app.jfr hot-methods --thread main --top 10
  jfrbpf view app.jfr method-timing
  jfrbpf view app.jfr off-cpu --thread worker-1
  jfrbpf view app.jfr allocation --top 10
  jfrbpf view app.jfr locks --thread worker-1
  jfrbpf view app.jfr contexts                     # CPU time by http.route, by trace, ...
  jfrbpf view app.jfr hot-methods --context http.route=/checkout
Exit codes: 0 shown; 1 unreadable or corrupt file; 2 bad command line.
)help";

std::string viewList() {
  std::string out;
  for (const auto& view : view::allViews()) {
    std::string name = "  " + std::string(view.name);
    name.resize(24, ' ');
    out += name + std::string(view.description) + (view.name == "summary" ? " (default)" : "") + "\n";
  }
  return out;
}

const view::ViewInfo* findView(std::string_view name) {
  for (const auto& v : view::allViews()) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

size_t terminalWidth() {
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 40) return size.ws_col;
  return 120;
}

}  // namespace

int runViewCommand(Arguments& args) {
  view::DigestOptions digestOptions;
  view::ViewOptions viewOptions;
  viewOptions.width = 0;
  std::vector<std::string> positional;
  std::string value;
  while (!args.done()) {
    if (takeFlag(args, "-h", "--help")) {
      std::string help = kViewHelp;
      help.replace(help.find("{VIEWS}"), 7, viewList());
      std::fputs(help.c_str(), stdout);
      return kExitOk;
    } else if (sampleOption(args, digestOptions.samples, "view")) {
    } else if (takeOption(args, "", "--top", value, "view")) {
      viewOptions.top = parseWholeNumber(value, "--top", 1, 1'000'000, "view");
    } else if (takeOption(args, "", "--stack-depth", value, "view")) {
      viewOptions.stackDepth = parseWholeNumber(value, "--stack-depth", 1, 10'000, "view");
    } else if (takeOption(args, "", "--width", value, "view")) {
      viewOptions.width = parseWholeNumber(value, "--width", 40, 10'000, "view");
    } else if (args.peek().starts_with("-") && args.peek() != "-") {
      unknownArgument(args.peek(), "view");
    } else {
      positional.push_back(args.next());
    }
  }
  if (positional.empty())
    throw Error("no recording given: jfrbpf view FILE [VIEW] (see jfrbpf view --help)", ErrorKind::Usage);
  if (positional.size() > 2) unknownArgument(positional[2], "view");
  // `jfr view` takes the view first; accept that order too.
  std::error_code ec;
  if (positional.size() == 2 && findView(positional[0]) && !std::filesystem::exists(positional[0], ec)) {
    std::swap(positional[0], positional[1]);
  }
  std::string name = positional.size() == 2 ? positional[1] : "summary";
  const view::ViewInfo* chosen = findView(name);
  if (!chosen) {
    std::string names;
    for (const auto& v : view::allViews()) names += (names.empty() ? "" : ", ") + std::string(v.name);
    throw Error("unknown view '" + name + "' (views: " + names + ")", ErrorKind::Usage);
  }
  if (viewOptions.width == 0) viewOptions.width = terminalWidth();

  view::RecordingDigest digest = view::digestRecording(positional[0], digestOptions);
  std::string text = chosen->render(digest, viewOptions);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace jfrbpf::cli
