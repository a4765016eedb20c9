#include "userspace/view/convert_command.h"

#include <cstdio>
#include <vector>

#include "base/error.h"
#include "formats/convert/convert.h"
#include "userspace/command_line/exit_codes.h"
#include "userspace/view/command_options.h"
#include "userspace/view/text_format.h"

namespace jfrbpf::cli {
namespace {

constexpr const char* kConvertHelp = R"help(Usage: jfrbpf convert [options] FILE --to collapsed|html|pprof|otlp [-o OUT]

Converts the CPU samples of a JDK Flight Recorder file (written by jfrbpf or by the JDK) for other tools.
CPU samples are jdk.CPUTimeSample events when the file has them, else jdk.ExecutionSample. With --off-cpu,
the off-CPU samples jfrbpf records (jfrbpf.OffCPUSample) instead; with --wall, both; with --alloc, the
allocation samples (jdk.ObjectAllocationSample); with --lock, the JVM's lock waits (jdk.JavaMonitorEnter,
jdk.JavaMonitorWait, jdk.ThreadPark). --to otlp without those options takes every kind the file has.

Formats:
  collapsed   one line per distinct stack, root first, frames separated by ';', then the count:
              the input of flamegraph.pl, speedscope and most flame graph tools
  html        one self-contained interactive flame graph page (no network access needed):
              search, click to zoom, thread and time-range filters, colours by frame type
  pprof       gzip'd profile.proto for pprof, Pyroscope and the like: samples/count and cpu/nanoseconds
              (off_cpu/nanoseconds, wall/nanoseconds; with --alloc alloc_objects/count, which counts
              the samples, and alloc_space/bytes; with --lock, as Go's mutex profiles,
              contentions/count and delay/nanoseconds), thread labels, line numbers, inlined frames
              folded into their compiled caller
  otlp        OpenTelemetry's profiles signal (opentelemetry-proto v1.10.0): the protobuf body of an
              OTLP/HTTP export to a Collector's /v1development/profiles, with a profile of each kind
              (CPU, off-CPU, allocation, lock; the one chosen with --off-cpu, --wall, --alloc or
              --lock), every sample's time, thread.name and thread.id, the trace and span as links,
              and the process (service.name, process.pid) as the resource

Options:
      --to FORMAT         collapsed, html, pprof or otlp (required)
  -o, --output OUT        where to write; default FILE with the extension .collapsed, .html, .pb.gz or
                          .otlp.pb (after "-off-cpu", "-wall", "-alloc" or "-lock" with those options);
                          "-" writes to standard output
      --off-cpu           where threads waited rather than where they ran: jfrbpf.OffCPUSample events,
                          each weighted by the off-CPU time it stands for (its weight, in nanoseconds)
      --wall              wall-clock time: CPU samples (jdk.CPUTimeSample, each its samplingPeriod of CPU
                          time) and off-CPU samples (each its weight) in one graph weighted by time; with
                          --thread, where the chosen threads spent their time. Every stack ends in a frame
                          that says where its time went: [on CPU], or [off CPU: STATE] with STATE sleeping,
                          uninterruptible (mostly disk I/O), preempted (runnable, waiting for a CPU) or
                          unknown. A method's box is its wall-clock time; the tips above it split that
                          into running and waiting.
      --alloc             what threads allocated rather than where they ran: jdk.ObjectAllocationSample
                          events, each weighted by the bytes it stands for (its weight), each stack topped
                          by the allocated class (byte[], java.lang.String), as async-profiler draws them
      --lock              where threads waited for locks: the JVM's jdk.JavaMonitorEnter (blocked
                          entering synchronized), jdk.JavaMonitorWait (in Object.wait) and jdk.ThreadPark
                          (parked, as java.util.concurrent locks wait) events, each weighted by the time
                          it waited (its duration, in nanoseconds), each stack topped by the class of the
                          monitor or of the object parked on, so that a flame graph shows which lock
                          (a ReentrantLock's: java.util.concurrent.locks.ReentrantLock$NonfairSync)
      --weight samples|time|bytes
                          collapsed: count samples (events with --lock), nanoseconds of the time they
                          stand for, or with --alloc bytes (default: samples; time with --off-cpu, --wall
                          and --lock; bytes with --alloc)
      --threads           collapsed: start each stack with a "[thread name tid=N]" frame
      --annotate          collapsed: frame type suffixes for flamegraph.pl --color=java:
                          _[j] JIT compiled, _[i] inlined, _[0] interpreted, _[k] kernel, allocated
                          class or lock class
      --title TEXT        html: the page title (default "CPU flame graph: FILE", "Off-CPU flame graph:
                          FILE", "Wall-clock flame graph: FILE", "Allocation flame graph: FILE" or
                          "Lock flame graph: FILE")
      --thread NAME|TID   only this thread: its Java or OS name, or its OS thread id
      --method TEXT       only samples with a frame whose name contains TEXT
      --event NAME        the CPU sample event to use, e.g. jdk.ExecutionSample (not with --off-cpu, --wall,
                          --alloc, --lock)
      --context KEY=VALUE only samples taken in this OpenTelemetry context: an attribute's value
                          (http.route=/checkout), or trace=ID or span=ID in hex
      --by KEY            each stack starts with a frame naming its value of KEY: trace, span or an
                          attribute (http.route), so that stacks divide by it
  -h, --help              this text

Examples:
  jfrbpf convert app.jfr --to html                 # writes app.html
  jfrbpf convert app.jfr --to collapsed -o - | flamegraph.pl --color=java > app.svg
  jfrbpf convert app.jfr --to pprof && pprof -http=: app.pb.gz
  jfrbpf convert app.jfr --to html --off-cpu       # writes app-off-cpu.html
  jfrbpf convert app.jfr --to collapsed --off-cpu -o - | flamegraph.pl --color=io --countname=ns > off.svg
  jfrbpf convert app.jfr --to html --wall --thread main -o main-wall.html
  jfrbpf convert app.jfr --to html --alloc         # writes app-alloc.html
  jfrbpf convert app.jfr --to pprof --alloc && pprof -top app-alloc.pb.gz   # bytes by class
  jfrbpf convert app.jfr --to html --lock          # writes app-lock.html
  jfrbpf convert app.jfr --to pprof --lock && pprof -top app-lock.pb.gz     # wait time by lock class
  jfrbpf convert app.jfr --to otlp                 # writes app.otlp.pb, then send it to a Collector:
  curl -X POST -H 'Content-Type: application/x-protobuf' --data-binary @app.otlp.pb \
       http://collector:4318/v1development/profiles
Exit codes: 0 written; 1 unreadable input or unwritable output; 2 bad command line.
)help";

// --off-cpu, --wall, --alloc and --lock choose the events themselves: none goes with another, nor with --event.
void checkTimeOptions(bool offCpu, bool wall, bool alloc, bool lock, const std::string& eventName) {
  if (offCpu && wall) {
    throw Error("--off-cpu and --wall together: --wall already has the off-CPU samples; give one of them",
                ErrorKind::Usage);
  }
  if (alloc && (offCpu || wall)) {
    throw Error(std::string("--alloc and ") + (offCpu ? "--off-cpu" : "--wall") +
                    " together: allocation samples weigh bytes, not time; give one of them",
                ErrorKind::Usage);
  }
  // Lock waits are a profile of their own, of the JVM's events: jfrbpf's off-CPU samples see every wait, a
  // lock's among them, so the two in one graph would count such a wait twice; allocations weigh bytes.
  if (lock && (offCpu || wall || alloc)) {
    throw Error(std::string("--lock and ") + (offCpu ? "--off-cpu" : wall ? "--wall" : "--alloc") +
                    " together: lock waits are a profile of their own; give one of them",
                ErrorKind::Usage);
  }
  if ((offCpu || wall || alloc || lock) && !eventName.empty()) {
    throw Error(std::string(offCpu ? "--off-cpu" : wall ? "--wall" : alloc ? "--alloc" : "--lock") +
                    " with --event: it uses " +
                    (offCpu  ? "jfrbpf.OffCPUSample"
                     : wall  ? "jdk.CPUTimeSample and jfrbpf.OffCPUSample"
                     : alloc ? convert::kAllocationSampleEvent
                             : "jdk.JavaMonitorEnter, jdk.JavaMonitorWait and jdk.ThreadPark") +
                    " events; drop --event",
                ErrorKind::Usage);
  }
}

// --weight: samples, or what they stand for: "time", or "bytes" for allocation samples. By default CPU samples
// count, others weigh what they stand for: off-CPU samples very unequal times (a 2 s wait, a 1 ms one),
// allocation samples unequal amounts (1 MB, 2 kB); counting them would mislead.
convert::Weight chooseWeight(const std::string& given, convert::TimeKind time) {
  const bool alloc = time == convert::TimeKind::kAlloc;
  if (given.empty()) return time == convert::TimeKind::kCpu ? convert::Weight::kSamples : convert::Weight::kCpuTime;
  if (given == "samples") return convert::Weight::kSamples;
  if (given == (alloc ? "bytes" : "time")) return convert::Weight::kCpuTime;
  throw Error(alloc ? "--weight time with --alloc: allocation samples weigh bytes; use --weight bytes"
                    : "--weight bytes without --alloc: these samples weigh time; use --weight time",
              ErrorKind::Usage);
}

// "(1,234 jdk.CPUTimeSample samples, 3 threads)", with the time the samples stand for off CPU and in a
// wall-clock graph, the bytes allocation samples stand for, the time lock waits lasted.
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
    case convert::TimeKind::kAlloc:
      return samples + " " + convert::kAllocationSampleEvent + " samples, " +
             view::humanBytes(static_cast<uint64_t>(result.bytes)) + " allocated, " + threads;
    case convert::TimeKind::kLock:
      return samples + " lock waits (" + (result.eventName.empty() ? "none" : result.eventName) + "), " +
             view::humanDuration(result.nanos) + " waited, " + threads;
  }
  return samples + " samples, " + threads;
}

// resultSummary of each profile an OTLP request holds, "; " between them.
std::string convertedSummary(const convert::ConvertResult& result) {
  if (result.profiles.empty()) return resultSummary(result, result.kind);
  std::string text;
  for (const convert::ConvertResult& profile : result.profiles) {
    text += (text.empty() ? "" : "; ") + resultSummary(profile, profile.kind);
  }
  return text;
}

}  // namespace

int runConvertCommand(Arguments& args) {
  convert::ConvertOptions options;
  std::optional<convert::Format> format;
  std::string weight;
  bool offCpu = false, wall = false, alloc = false, lock = false;
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
        throw Error("invalid --to '" + value + "': expected collapsed, html, pprof or otlp", ErrorKind::Usage);
      }
    } else if (takeOption(args, "-o", "--output", value, "convert")) {
      output = value;
    } else if (takeOption(args, "", "--weight", value, "convert")) {
      if (value != "samples" && value != "time" && value != "bytes") {
        throw Error("invalid --weight '" + value + "': expected samples, time or bytes", ErrorKind::Usage);
      }
      weight = value;
    } else if (takeFlag(args, "", "--off-cpu")) {
      offCpu = true;
    } else if (takeFlag(args, "", "--wall")) {
      wall = true;
    } else if (takeFlag(args, "", "--alloc")) {
      alloc = true;
    } else if (takeFlag(args, "", "--lock")) {
      lock = true;
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
  checkTimeOptions(offCpu, wall, alloc, lock, options.samples.eventName);
  if (positional.empty()) {
    throw Error("no recording given: jfrbpf convert FILE --to FORMAT (see jfrbpf convert --help)", ErrorKind::Usage);
  }
  if (positional.size() > 1) unknownArgument(positional[1], "convert");
  if (!format) {
    throw Error("give the output format: --to collapsed, --to html, --to pprof or --to otlp", ErrorKind::Usage);
  }
  options.time = wall     ? convert::TimeKind::kWall
                 : offCpu ? convert::TimeKind::kOffCpu
                 : alloc  ? convert::TimeKind::kAlloc
                 : lock   ? convert::TimeKind::kLock
                          : convert::TimeKind::kCpu;
  options.everyKind = *format == convert::Format::kOtlp && !(offCpu || wall || alloc || lock);
  options.collapsed.weight = chooseWeight(weight, options.time);
  if (output.empty()) output = convert::defaultOutputPath(positional[0], *format, options.time);

  convert::ConvertResult result = convert::convertRecording(positional[0], *format, output, options);
  // With the output on stdout, the report goes to stderr.
  FILE* report = output == "-" ? stderr : stdout;
  if (result.samples == 0) {
    const std::string wanted = options.everyKind ? "CPU, off-CPU, allocation or lock samples"
                                                 : std::string(convert::timeKindNames(options.time).samples);
    std::fprintf(
        stderr, "jfrbpf: warning: no %s in %s%s; the %s output is empty\n", wanted.c_str(), positional[0].c_str(),
        options.samples.filter.thread.empty() && options.samples.filter.method.empty() ? "" : " match the filters",
        std::string(convert::formatName(*format)).c_str());
  }
  if (output != "-") {
    std::fprintf(report, "jfrbpf: wrote %s (%s)\n", output.c_str(), convertedSummary(result).c_str());
  }
  return kExitOk;
}

}  // namespace jfrbpf::cli
