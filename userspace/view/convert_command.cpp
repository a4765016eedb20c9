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
CPU samples are jdk.CPUTimeSample events when the file has them, else jdk.ExecutionSample. With --off-cpu,
the off-CPU samples jfrbpf records (jfrbpf.OffCPUSample) instead; with --wall, both.

Formats:
  collapsed   one line per distinct stack, root first, frames separated by ';', then the count:
              the input of flamegraph.pl, speedscope and most flame graph tools
  html        one self-contained interactive flame graph page (no network access needed):
              search, click to zoom, thread and time-range filters, colours by frame type
  pprof       gzip'd profile.proto for pprof, Pyroscope and the like: samples/count and cpu/nanoseconds
              (off_cpu/nanoseconds, wall/nanoseconds), thread labels, line numbers, inlined frames folded
              into their compiled caller

Options:
      --to FORMAT         collapsed, html or pprof (required)
  -o, --output OUT        where to write; default FILE with the extension .collapsed, .html or .pb.gz
                          (after "-off-cpu" or "-wall" with those options); "-" writes to standard output
      --off-cpu           where threads waited rather than where they ran: jfrbpf.OffCPUSample events,
                          each weighted by the off-CPU time it stands for (its weight, in nanoseconds)
      --wall              wall-clock time: CPU samples (jdk.CPUTimeSample, each its samplingPeriod of CPU
                          time) and off-CPU samples (each its weight) in one graph weighted by time; with
                          --thread, where the chosen threads spent their time. Every stack ends in a frame
                          that says where its time went: [on CPU], or [off CPU: STATE] with STATE sleeping,
                          uninterruptible (mostly disk I/O), preempted (runnable, waiting for a CPU) or
                          unknown. A method's box is its wall-clock time; the tips above it split that
                          into running and waiting.
      --weight samples|time
                          collapsed: count samples or nanoseconds of the time they stand for (default:
                          samples; time with --off-cpu and --wall)
      --threads           collapsed: start each stack with a "[thread name tid=N]" frame
      --annotate          collapsed: frame type suffixes for flamegraph.pl --color=java:
                          _[j] JIT compiled, _[i] inlined, _[0] interpreted, _[k] kernel
      --title TEXT        html: the page title (default "CPU flame graph: FILE", "Off-CPU flame graph:
                          FILE" or "Wall-clock flame graph: FILE")
      --thread NAME|TID   only this thread: its Java or OS name, or its OS thread id
      --method TEXT       only samples with a frame whose name contains TEXT
      --event NAME        the CPU sample event to use, e.g. jdk.ExecutionSample (not with --off-cpu, --wall)
  -h, --help              this text

Examples:
  jfrbpf convert app.jfr --to html                 # writes app.html
  jfrbpf convert app.jfr --to collapsed -o - | flamegraph.pl --color=java > app.svg
  jfrbpf convert app.jfr --to pprof && pprof -http=: app.pb.gz
  jfrbpf convert app.jfr --to html --off-cpu       # writes app-off-cpu.html
  jfrbpf convert app.jfr --to collapsed --off-cpu -o - | flamegraph.pl --color=io --countname=ns > off.svg
  jfrbpf convert app.jfr --to html --wall --thread main -o main-wall.html
Exit codes: 0 written; 1 unreadable input or unwritable output; 2 bad command line.
)help";

// --off-cpu and --wall choose the events themselves: neither goes with the other, nor with --event.
void checkTimeOptions(bool offCpu, bool wall, const std::string& eventName) {
  if (offCpu && wall) {
    throw Error("--off-cpu and --wall together: --wall already has the off-CPU samples; give one of them",
                ErrorKind::Usage);
  }
  if ((offCpu || wall) && !eventName.empty()) {
    throw Error(std::string(offCpu ? "--off-cpu" : "--wall") + " with --event: it uses " +
                    (offCpu ? "jfrbpf.OffCPUSample" : "jdk.CPUTimeSample and jfrbpf.OffCPUSample") +
                    " events; drop --event",
                ErrorKind::Usage);
  }
}

// "(1,234 jdk.CPUTimeSample samples, 3 threads)", with the time the samples stand for off CPU and in a
// wall-clock graph.
std::string resultSummary(const convert::ConvertResult& result, convert::TimeKind time) {
  std::string samples = groupThousands(result.samples);
  std::string threads = std::to_string(result.threads) + (result.threads == 1 ? " thread" : " threads");
  switch (time) {
    case convert::TimeKind::kCpu:
      return samples + " " + (result.eventName.empty() ? "CPU" : result.eventName) + " samples, " + threads;
    case convert::TimeKind::kOffCpu:
      return samples + " " + convert::kOffCpuSampleEvent + " samples, " + view::humanDuration(result.nanos) +
             " of off-CPU time, " + threads;
    case convert::TimeKind::kWall:
      return samples + " samples: " + view::humanDuration(result.onCpuNanos) + " on CPU + " +
             view::humanDuration(result.nanos - result.onCpuNanos) + " off CPU, " + threads;
  }
  return samples + " samples, " + threads;
}

}  // namespace

int runConvertCommand(Arguments& args) {
  convert::ConvertOptions options;
  std::optional<convert::Format> format;
  std::optional<convert::Weight> weight;
  bool offCpu = false, wall = false;
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
        weight = convert::Weight::kSamples;
      } else if (value == "time") {
        weight = convert::Weight::kCpuTime;
      } else {
        throw Error("invalid --weight '" + value + "': expected samples or time", ErrorKind::Usage);
      }
    } else if (takeFlag(args, "", "--off-cpu")) {
      offCpu = true;
    } else if (takeFlag(args, "", "--wall")) {
      wall = true;
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
  checkTimeOptions(offCpu, wall, options.samples.eventName);
  if (positional.empty()) {
    throw Error("no recording given: jfrbpf convert FILE --to FORMAT (see jfrbpf convert --help)", ErrorKind::Usage);
  }
  if (positional.size() > 1) unknownArgument(positional[1], "convert");
  if (!format) throw Error("give the output format: --to collapsed, --to html or --to pprof", ErrorKind::Usage);
  options.time = wall ? convert::TimeKind::kWall : offCpu ? convert::TimeKind::kOffCpu : convert::TimeKind::kCpu;
  if (output.empty()) output = convert::defaultOutputPath(positional[0], *format, options.time);
  // Off-CPU samples stand for very unequal times (a 2 s wait, a 1 ms one): counting them would mislead.
  options.collapsed.weight =
      weight.value_or(options.time == convert::TimeKind::kCpu ? convert::Weight::kSamples : convert::Weight::kCpuTime);

  convert::ConvertResult result = convert::convertRecording(positional[0], *format, output, options);
  // With the output on stdout, the report goes to stderr.
  FILE* report = output == "-" ? stderr : stdout;
  if (result.samples == 0) {
    std::fprintf(
        stderr, "jfrbpf: warning: no %s in %s%s; the %s output is empty\n",
        std::string(convert::timeKindNames(options.time).samples).c_str(), positional[0].c_str(),
        options.samples.filter.thread.empty() && options.samples.filter.method.empty() ? "" : " match the filters",
        std::string(convert::formatName(*format)).c_str());
  }
  if (output != "-") {
    std::fprintf(report, "jfrbpf: wrote %s (%s)\n", output.c_str(), resultSummary(result, options.time).c_str());
  }
  return kExitOk;
}

}  // namespace jfrbpf::cli
