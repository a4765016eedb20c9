#include "userspace/view/convert_command.h"

#include <cstdio>
#include <vector>

#include "formats/convert/convert.h"
#include "userspace/base/error.h"
#include "userspace/cli/exit_codes.h"
#include "userspace/view/command_options.h"
#include "userspace/view/text_format.h"

namespace jfrbpf::cli {
namespace {

constexpr const char* kConvertHelp = R"help(Usage: jfrbpf convert [options] FILE --to collapsed|html|pprof [-o OUT]

Converts the CPU samples of a JDK Flight Recorder file (written by jfrbpf or by the JDK) for other tools.
CPU samples are jdk.CPUTimeSample events when the file has them, else jdk.ExecutionSample.

Formats:
  collapsed   one line per distinct stack, root first, frames separated by ';', then the count:
              the input of flamegraph.pl, speedscope and most flame graph tools
  html        one self-contained interactive flame graph page (no network access needed):
              search, click to zoom, thread and time-range filters, colours by frame type
  pprof       gzip'd profile.proto for pprof, Pyroscope and the like: samples/count and cpu/nanoseconds,
              thread labels, line numbers, inlined frames folded into their compiled caller

Options:
      --to FORMAT         collapsed, html or pprof (required)
  -o, --output OUT        where to write; default FILE with the extension .collapsed, .html or .pb.gz;
                          "-" writes to standard output
      --weight samples|time
                          collapsed: count samples (default) or nanoseconds of CPU time they stand for
      --threads           collapsed: start each stack with a "[thread name tid=N]" frame
      --annotate          collapsed: frame type suffixes for flamegraph.pl --color=java:
                          _[j] JIT compiled, _[i] inlined, _[0] interpreted, _[k] kernel
      --title TEXT        html: the page title (default "CPU flame graph: FILE")
      --thread NAME|TID   only this thread: its Java or OS name, or its OS thread id
      --method TEXT       only samples with a frame whose name contains TEXT
      --event NAME        the sample event to use, e.g. jdk.ExecutionSample
  -h, --help              this text

Examples:
  jfrbpf convert app.jfr --to html                 # writes app.html
  jfrbpf convert app.jfr --to collapsed -o - | flamegraph.pl --color=java > app.svg
  jfrbpf convert app.jfr --to pprof && pprof -http=: app.pb.gz
Exit codes: 0 written; 1 unreadable input or unwritable output; 2 bad command line.
)help";

}  // namespace

int runConvertCommand(Arguments& args) {
  convert::ConvertOptions options;
  std::optional<convert::Format> format;
  std::string output;
  std::vector<std::string> positional;
  std::string value;
  while (!args.done()) {
    if (takeFlag(args, "-h", "--help")) {
      std::fputs(kConvertHelp, stdout);
      return kExitOk;
    } else if (sampleOption(args, options.samples, "convert")) {
    } else if (takeOption(args, "", "--to", value, "convert")) {
      format = convert::parseFormat(value);
      if (!format) {
        throw Error("invalid --to '" + value + "': expected collapsed, html or pprof", ErrorKind::Usage);
      }
    } else if (takeOption(args, "-o", "--output", value, "convert")) {
      output = value;
    } else if (takeOption(args, "", "--weight", value, "convert")) {
      if (value == "samples") {
        options.collapsed.weight = convert::Weight::kSamples;
      } else if (value == "time") {
        options.collapsed.weight = convert::Weight::kCpuTime;
      } else {
        throw Error("invalid --weight '" + value + "': expected samples or time", ErrorKind::Usage);
      }
    } else if (takeFlag(args, "", "--threads")) {
      options.collapsed.threadRoots = true;
    } else if (takeFlag(args, "", "--annotate")) {
      options.collapsed.annotate = true;
    } else if (takeOption(args, "", "--title", value, "convert")) {
      options.title = value;
    } else if (args.peek().starts_with("-") && args.peek() != "-") {
      unknownArgument(args.peek(), "convert");
    } else {
      positional.push_back(args.next());
    }
  }
  if (positional.empty()) {
    throw Error("no recording given: jfrbpf convert FILE --to FORMAT (see jfrbpf convert --help)", ErrorKind::Usage);
  }
  if (positional.size() > 1) unknownArgument(positional[1], "convert");
  if (!format) throw Error("give the output format: --to collapsed, --to html or --to pprof", ErrorKind::Usage);
  if (output.empty()) output = convert::defaultOutputPath(positional[0], *format);

  convert::ConvertResult result = convert::convertRecording(positional[0], *format, output, options);
  // With the output on stdout, the report goes to stderr.
  FILE* report = output == "-" ? stderr : stdout;
  if (result.samples == 0) {
    std::fprintf(
        stderr, "jfrbpf: warning: no CPU samples in %s%s; the %s output is empty\n", positional[0].c_str(),
        options.samples.filter.thread.empty() && options.samples.filter.method.empty() ? "" : " match the filters",
        std::string(convert::formatName(*format)).c_str());
  }
  if (output != "-") {
    std::fprintf(report, "jfrbpf: wrote %s (%s %s samples, %llu threads)\n", output.c_str(),
                 view::groupThousands(result.samples).c_str(),
                 result.eventName.empty() ? "CPU" : result.eventName.c_str(),
                 static_cast<unsigned long long>(result.threads));
  }
  return kExitOk;
}

}  // namespace jfrbpf::cli
