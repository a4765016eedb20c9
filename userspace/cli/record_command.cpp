#include "userspace/cli/record_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <iostream>

#include "base/debug_options.h"
#include "base/error.h"
#include "base/number_text.h"
#include "formats/jfr/writer/durations.h"
#include "bpf/sampler_abi.h"
#include "userspace/cli/jfr_values.h"
#include "userspace/command_line/exit_codes.h"
#include "userspace/command_line/whole_number.h"
#include "userspace/push/push_credentials.h"
#include "userspace/push/push_destination.h"
#include "userspace/record/files/output_directory.h"
#include "userspace/record/files/push_spool.h"
#include "userspace/record/host_recorder.h"
#include "userspace/record/recorder.h"
#include "userspace/record/sampling/online_cpus.h"
#include "userspace/record/sampling/sample_costs.h"
#include "userspace/record/session/memory_budget.h"
#include "userspace/record/session/progress_line.h"

namespace jfrbpf::cli {
namespace {

constexpr const char* kRecordHelp = R"(Usage: jfrbpf record [options] -p PID[,PID...]
       jfrbpf record [options] -- COMMAND [ARGS...]
       jfrbpf record [options] --all [-o DIR] [--filter-container ID]

Samples the CPU time of running processes (or of COMMAND, from its first instruction) with eBPF and writes
a JDK Flight Recorder file of CPU samples with kernel and native frames, one per --interval of a thread's
CPU time by the kernel's own accounting, as jdk.CPUTimeSample and jdk.ExecutionSample events, plus
jdk.CPUTimeSamplesLost events that account for every sample that could not be kept. In JVMs it can also
time and trace chosen methods (JEP 520's jdk.MethodTiming and jdk.MethodTrace, on any JDK from 8 on).

Options:
  -p, --pid PID[,PID...]   process(es) to profile; repeatable
      --all                every HotSpot JVM on the host (containers included) and every JVM that starts
                           while recording, each into its own file PID-MAIN[-CONTAINER].jfr in the -o
                           directory (default jfrbpf-all-DATE-TIME); a JVM that exits gets its file finished
      --filter-container ID  with --all: only JVMs whose container id starts with ID
  -d, --duration TIME      stop after TIME (JFR syntax: 30s, 1 m, 500ms); default: until Ctrl-C,
                           SIGTERM, or every target has exited
  -o, --output FILE        where to write the recording; default jfrbpf-PID-DATE-TIME.jfr
      --interval TIME      CPU time between two samples of a thread (default 10ms, at least 10us);
                           use either --interval or --rate
      --rate N/s           samples per second over all CPUs (JEP 509's throttle form: the period is
                           CPUs x 1 s / N); use either --interval or --rate
      --max-rate N/s       a budget of samples per second for the whole host, however many threads and
                           JVMs run: the period is lengthened while the host would sample more (and
                           shortened again, never below --interval), and each file's settings follow it
      --sample-events cpu-time|execution|both
                           the events CPU samples are written as (default both, each sample once in
                           each): jdk.CPUTimeSample (JDK 25's jfr view cpu-time-hot-methods, jfrbpf view)
                           or jdk.ExecutionSample (JMC, IntelliJ, Pyroscope, jfr view hot-methods). Tools
                           that add up every sample event they know count a file with both twice, and some
                           refuse it (async-profiler's jfrconv without --cpu-time, Lucene's): give them one
      --stack-depth N      deepest user stack kept, 1..512 (default 512; deeper stacks are marked truncated)
      --sampler thread|cpu what drives sampling: each thread's own CPU time (thread, the default, like JDK
                           25's CPUTimeSample), or one clock per CPU (cpu: constant cost however many
                           threads, but biased in which moments it catches). Either way a thread gets one
                           sample per period of the CPU time the kernel accounted to it
      --ring-buffer SIZE   BPF ring buffer size in bytes, a power of two (default 8m; k/m suffixes)
      --method-timing FILTER
                           time the JVM methods FILTER selects: jdk.MethodTiming events with invocations
                           and minimum/average/maximum time. FILTER is JEP 520's: targets separated by ';',
                           each com.foo.Bar (every method), com.foo.Bar::method (all overloads, <init> and
                           <clinit> too), ::method (in every class) or @com.foo.Annotation; @./FILE reads
                           the targets from a file (one per line)
      --method-trace FILTER
                           one jdk.MethodTrace event (duration and the caller's stack) per call of the
                           methods FILTER selects
      --trace-threshold TIME
                           trace only calls that take at least TIME (JFR's threshold; default 0 ms)
      --timing-period TIME write jdk.MethodTiming every TIME as well (JFR's period; default: once, when the
                           recording ends, like JFR's endChunk); the values are cumulative, as in the JDK
      --context-only[=sampled]
                           keep only the CPU samples a thread took in an OpenTelemetry context (of a
                           process that publishes them: docs/otel-context.md), or with `sampled` in a
                           sampled trace; the others are left out and counted (JFR's
                           record-only-on-context)
      --off-cpu[=INTERVAL] where threads wait as well: jfrbpf.OffCPUSample events with the stack a thread
                           left the CPU with (Java, native and kernel frames), how long it was off, its
                           state (sleeping, uninterruptible, preempted) and its wait for a CPU (run
                           delay); every wait of at least INTERVAL (default 1ms; 0: every wait) and about
                           one per INTERVAL of shorter ones, each weighted by the off-CPU time it stands for
      --alloc[=INTERVAL]   where memory is allocated: jdk.ObjectAllocationSample events (the object's class,
                           the allocating thread and its full stack) from the JVM's own heap sampler, each
                           weighted by what its thread allocated since its previous sample, so a thread's
                           weights add up to what it allocated. INTERVAL: mean bytes between a thread's
                           samples (512k), or samples per second per JVM (JFR's throttle: 300/s, the
                           default); at most 10,000 samples per second per JVM either way
      --lock[=THRESHOLD]   why threads wait for each other: jdk.JavaMonitorEnter (blocked entering a
                           synchronized block or method), jdk.JavaMonitorWait (Object.wait) and
                           jdk.ThreadPark (LockSupport.park: ReentrantLock and the other
                           java.util.concurrent locks) events for every wait of at least THRESHOLD (JFR's
                           default: 20ms; 0: every one), with the monitor's or the blocker's class, the
                           wait's duration and the waiting thread's full stack from where it waited
      --flush TIME         finish the file's current chunk at least every TIME (default 1s): what a crash
                           (SIGKILL, OOM killer) can lose; `jfrbpf recover` repairs what it leaves
      --rotate TIME        continuous recording: a new file every TIME (at least 1s) while sampling goes
                           on, each complete in itself and renamed into place when finished; -o is then a
                           directory (default jfrbpf-PID-DATE-TIME) of files PID-MAIN-UTCSTART.jfr
      --rotate-size SIZE   a new file once the current one holds SIZE (JFR sizes: 100m, 1g); with or
                           without --rotate
      --max-age TIME       remove finished recordings in the -o directory older than TIME, oldest first
      --max-size SIZE      remove a process's finished recordings, oldest first, while its recordings
                           take more than SIZE, so one busy JVM pushes out only its own files
      --max-total-size SIZE  and while all recordings in the directory take more than SIZE, the
                           oldest of any process (--max-age, --max-size and --max-total-size need
                           --rotate, --rotate-size or --all; files being written and each process's
                           newest are never removed)
      --memory-limit SIZE  the most memory jfrbpf itself may use (default 256m, at least 128m): from 7/8
                           of it on, its caches are dropped and refill as needed; a JVM whose metadata
                           outgrows a quarter of it, or the largest when that is not enough, goes on with
                           native frames only (a note says so), so no target can push jfrbpf past SIZE
      --push otlp=URL|pyroscope=URL
                           send each finished file (each --rotate file, each JVM's with --all, the
                           recording's at the end) to an OpenTelemetry Collector's OTLP/HTTP receiver
                           (as OTLP profiles; a URL without a path gets /v1development/profiles) or to
                           Grafana Pyroscope (the JFR file, to URL/ingest); repeatable. Recording never
                           waits for it: files wait in OUTPUT/.jfrbpf-push until delivered, are tried again
                           with backoff while the backend is down or answers 5xx, and are sent after a
                           restart too. At the end jfrbpf waits up to --push-timeout for what is pending
      --push-credentials FILE
                           headers for --push from FILE (NAME=VALUE lines, mode 600) rather than the
                           environment: OTEL_EXPORTER_OTLP_HEADERS (name=value,... e.g.
                           authorization=Bearer%20TOKEN), PYROSCOPE_AUTH_TOKEN, PYROSCOPE_BASIC_AUTH_USER
                           and _PASSWORD, PYROSCOPE_TENANT_ID (never on the command line, which ps shows)
      --push-ca FILE       trust the CA certificates in FILE for https (default: the system's)
      --push-spool-size SIZE
                           the most each destination's spool keeps (default 512m); past it the oldest
                           undelivered files are dropped, and counted
      --push-timeout TIME  the longest one upload may take (default 30s)
  -h, --help               this text

Examples:
  sudo jfrbpf record -p 4242 -d 30s -o app.jfr
  sudo jfrbpf record --interval 1ms -- ./my-benchmark --iterations 10
  sudo jfrbpf record -p 4242 --method-timing 'com.example.Foo::bar' --method-trace '::<clinit>'
  sudo jfrbpf record -p 4242 --off-cpu -d 30s -o waits.jfr
  sudo jfrbpf record -p 4242 --alloc -d 30s -o memory.jfr
  sudo jfrbpf record --all -d 60s -o /var/tmp/profiles
  sudo jfrbpf record --all --rotate 1m --max-age 1d -o /var/lib/jfrbpf
  sudo jfrbpf record --all --rotate 1m --push otlp=http://collector:4318 --push pyroscope=http://pyroscope:4040
  jfr print --events jdk.CPUTimeSample app.jfr
  jfr view method-timing app.jfr          (JDK 25's jfr)

Needs root and a kernel with BTF. Without root: CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE (CAP_SYSLOG to name
kernel frames); another user's JVM also CAP_DAC_READ_SEARCH, CAP_SETUID, CAP_SETGID and CAP_KILL; method
timing and tracing also CAP_SYS_ADMIN.
Exit codes: 0 recording written; 1 failure while recording; 2 bad command line;
            3 not permitted or not supported here; 4 target unusable (no such process, exited, not found).
)";

uint32_t parseRingBufferSize(const std::string& text) {
  std::string digits = text;
  uint64_t scale = 1;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K')) scale = 1024;
  if (!digits.empty() && (digits.back() == 'm' || digits.back() == 'M')) scale = 1024 * 1024;
  if (scale != 1) digits.pop_back();
  uint64_t bytes = parseWholeNumber(digits, "--ring-buffer", 1, 1u << 30, "record") * scale;
  long page = sysconf(_SC_PAGESIZE);
  if (bytes < static_cast<uint64_t>(page) || (bytes & (bytes - 1)) != 0 || bytes > (1u << 30)) {
    throw Error("invalid --ring-buffer '" + text + "': expected a power of two from 4k to 1024m", ErrorKind::Usage);
  }
  return static_cast<uint32_t>(bytes);
}

void parsePids(const std::string& text, std::vector<pid_t>& pids) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    pids.push_back(static_cast<pid_t>(parseWholeNumber(part, "--pid", 1, 4194304, "record")));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

// A file, or for --all and --rotate a directory.
std::string defaultOutputName(const record::RecordConfig& config, bool directory) {
  char stamp[32];
  time_t now = time(nullptr);
  tm local{};
  localtime_r(&now, &local);
  strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
  if (config.pids.empty() && config.command.empty()) return std::string("jfrbpf-all-") + stamp;
  std::string who = config.pids.empty() ? "launch" : std::to_string(config.pids.front());
  return "jfrbpf-" + who + "-" + stamp + (directory ? "" : ".jfr");
}

// --alloc=INTERVAL: a rate (JFR's throttle form) or a size (async-profiler's --alloc form).
record::AllocationOptions parseAllocationInterval(const std::string& value) {
  record::AllocationOptions options;
  options.enabled = true;
  if (value.find('/') != std::string::npos) {
    const double rate = parseRate(value, "--alloc");
    if (rate < 1 || rate > record::kMaxAllocationSamplesPerSecond) {
      throw Error("invalid --alloc '" + value + "': the rate must be from 1/s to " +
                      std::to_string(record::kMaxAllocationSamplesPerSecond) + "/s per JVM",
                  ErrorKind::Usage);
    }
    options.samplesPerSecond = static_cast<uint32_t>(rate);
    return options;
  }
  options.intervalBytes = parseSize(value, "--alloc");
  if (options.intervalBytes < 1024 || options.intervalBytes > 0x7fffffff) {
    throw Error("invalid --alloc '" + value + "': the interval must be from 1k to 2g bytes", ErrorKind::Usage);
  }
  return options;
}

// A line for each event source that has something to say (sources/).
void printSources(const record::RecordSummary& s) {
  for (const auto& report : s.sources) {
    const std::string line = report->line(s);
    if (!line.empty()) std::printf("  %s\n", line.c_str());
  }
}

// Only when some stack stopped before its thread's outermost frame: how many, and why.
void printTruncatedStacks(const record::RecordSummary& s) {
  if (s.truncatedStacks == 0) return;
  std::printf("  stacks   %s truncated (%.2f %%:", groupThousands(s.truncatedStacks).c_str(),
              100.0 * static_cast<double>(s.truncatedStacks) /
                  static_cast<double>(std::max<uint64_t>(1, s.stacks)));
  const char* separator = "";
  for (const auto& [cause, count] : s.truncatedByCause) {
    std::printf("%s %s %s", separator, groupThousands(count).c_str(), cause.c_str());
    separator = ",";
  }
  std::printf(")\n");
}

// Only when some target's threads publish OpenTelemetry contexts: how many events were taken in one, and
// how many could not read their thread's, and why.
void printContexts(const record::RecordSummary& s) {
  const record::ContextCounts& c = s.contexts;
  if (c.read() == 0 && c.notRead() == 0) return;
  std::printf("  context  %s events in an OpenTelemetry context", groupThousands(c.read()).c_str());
  if (c.notRead() > 0) {
    std::printf(", %s not read (", groupThousands(c.notRead()).c_str());
    const char* separator = "";
    for (uint32_t status = 0; status < c.byStatus.size(); ++status) {
      if (c.byStatus[status] == 0 || *record::contextNotReadCause(status) == '\0') continue;
      std::printf("%s%s %s", separator, groupThousands(c.byStatus[status]).c_str(), record::contextNotReadCause(status));
      separator = ", ";
    }
    std::printf(")");
  }
  std::printf("\n");
}

// --push: what became of the files at each destination.
void printPushes(const record::RecordSummary& s) {
  for (const record::PushCounts& p : s.pushes) std::printf("  pushed   %s\n", record::describe(p).c_str());
}

// Said when the budget had to act, and always with JFRBPF_DEBUG.
void printMemory(const record::RecordSummary& s) {
  if (s.memorySheds == 0 && s.javaFramesDropped == 0 && !std::getenv("JFRBPF_DEBUG")) return;
  std::printf("  memory   peak %s of --memory-limit %s", mebibytes(s.peakResidentBytes).c_str(),
              mebibytes(s.memoryLimitBytes).c_str());
  if (s.memorySheds > 0) std::printf(", caches dropped %llu times", static_cast<unsigned long long>(s.memorySheds));
  if (s.javaFramesDropped > 0) {
    std::printf(", Java frames dropped in %llu JVM%s", static_cast<unsigned long long>(s.javaFramesDropped),
                s.javaFramesDropped == 1 ? "" : "s");
  }
  std::printf("\n");
}

void printSummary(const record::RecordSummary& s, int64_t periodNs) {
  double cpuSeconds = static_cast<double>(s.sampledCpuNs) / 1e9;
  if (s.fileCount > 1) {
    std::printf("jfrbpf: wrote %zu files, the last %s (%.1f s, %s)\n", s.fileCount, s.outputPath.c_str(), s.seconds,
                record::describe(s.stopReason));
  } else {
    std::printf("jfrbpf: wrote %s (%.1f s, %s)\n", s.outputPath.c_str(), s.seconds, record::describe(s.stopReason));
  }
  std::printf("  samples  %s (%.2f s of CPU time, one per %s of a thread's%s)", groupThousands(s.samples).c_str(),
              cpuSeconds, jfr::formatDuration(periodNs).c_str(),
              s.periodNs != periodNs ? (", " + jfr::formatDuration(s.periodNs) + " at the end for --max-rate").c_str() : "");
  if (s.failedStacks) std::printf(", %s without a user stack", groupThousands(s.failedStacks).c_str());
  std::printf("\n  lost     %s of %s sampling ticks", groupThousands(s.lost).c_str(), groupThousands(s.overflows).c_str());
  if (s.lost > 0) {
    std::printf(" (%.2f %%:", 100.0 * static_cast<double>(s.lost) / static_cast<double>(std::max<uint64_t>(1, s.overflows)));
    for (const auto& [cause, count] : s.lostByCause) std::printf(" %s %s", groupThousands(count).c_str(), cause.c_str());
    std::printf(")");
  }
  if (s.leftOutOfContext > 0) {
    std::printf("\n  left out %s outside an OpenTelemetry context (--context-only)",
                groupThousands(s.leftOutOfContext).c_str());
  }
  std::printf("\n  threads  %s\n", groupThousands(s.threads).c_str());
  printSources(s);
  printTruncatedStacks(s);
  printContexts(s);
  printMemory(s);
  printPushes(s);
  if (std::getenv("JFRBPF_DEBUG")) {
    static const char* names[] = {"overflows", "not target", "sampled", "lost: ring buffer full", "lost: scratch",
                                  "kernel stack failed", "user stack failed", "user stack truncated",
                                  "lost: loss table full", "walk: root", "walk: read fault", "walk: unknown code",
                                  "walk: no unwind info", "walk: bad frame", "walk: JavaFrameAnchor used",
                                  "code cache frees seen", "ahead of CPU time",
                                  "walk: displaced frames", "off-CPU: intervals", "off-CPU: sampled",
                                  "off-CPU lost: ring full", "off-CPU lost: busy", "off-CPU: merged",
                                  "off-CPU: no user stack", "off-CPU: no task storage", "sample periods due",
                                  "walk: frozen frames"};
    static_assert(std::size(names) == JFRBPF_COUNTER_COUNT);
    for (size_t i = 0; i < std::size(names); ++i) std::printf("  [debug] %-26s %llu\n", names[i], static_cast<unsigned long long>(s.counters[i]));
    // JFRBPF_DEBUG=cost: the BPF time of the target's samples, for benchmarks.
    for (double q : {0.5, 0.9, 0.99}) {
      if (s.sampleCosts.empty()) break;
      std::printf("  [debug] sample cost p%-2.0f ns        %.0f\n", 100 * q, record::sampleCostQuantileNs(s.sampleCosts, q));
    }
  }
}

void printHostSummary(const record::RecordSummary& s) {
  std::printf("jfrbpf: recorded %zu JVM%s into %s (%.1f s, %s)\n", s.files.size(), s.files.size() == 1 ? "" : "s", s.outputPath.c_str(), s.seconds,
              record::describe(s.stopReason));
  for (const auto& file : s.files) {
    std::string files = file.fileCount > 1 ? " (the last of " + std::to_string(file.fileCount) + " files)" : "";
    std::printf("  %-48s %8s samples %6s lost%s%s\n", file.path.c_str(), groupThousands(file.samples).c_str(),
                groupThousands(file.lost).c_str(), files.c_str(), file.javaFrames ? "" : "  (native frames only)");
  }
  std::printf("  total    %s samples (%.2f s of CPU time), %s lost of %s sampling ticks\n", groupThousands(s.samples).c_str(),
              static_cast<double>(s.sampledCpuNs) / 1e9, groupThousands(s.lost).c_str(),
              groupThousands(s.overflows).c_str());
  printTruncatedStacks(s);
  printMemory(s);
  printPushes(s);
}

// Fails before anything is loaded or attached when the output cannot be written where asked.
void requireWritableDestination(const std::string& path) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (std::filesystem::is_directory(target, ec)) {
    throw Error("cannot write " + path + ": it is a directory (give a file name with -o)", ErrorKind::Usage);
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    throw Error("cannot write " + path + ": directory " + dir.string() + " does not exist (create it or change -o)",
                ErrorKind::Usage);
  }
  if (access(dir.c_str(), W_OK) != 0) {
    throw Error("cannot write " + path + ": directory " + dir.string() + " is not writable (change -o)",
                ErrorKind::Usage);
  }
  record::requireRoomToRecord(dir.string());
}

}  // namespace

int runRecordCommand(Arguments& args) {
  record::RecordConfig config;
  std::string value;
  std::string interval;
  std::string rate;
  bool traceThresholdGiven = false;
  bool timingPeriodGiven = false;
  bool all = false;
  const char* pushOptionGiven = nullptr;
  while (!args.done()) {
    if (args.flag("-h", "--help")) {
      std::fputs(kRecordHelp, stdout);
      return kExitOk;
    } else if (args.flag("", "--")) {
      config.command = args.rest();
    } else if (args.flag("", "--all")) {
      all = true;
    } else if (args.option("", "--filter-container", value)) {
      config.containerFilter = value;
    } else if (args.option("-p", "--pid", value)) {
      parsePids(value, config.pids);
    } else if (args.option("-d", "--duration", value)) {
      config.durationNs = parseDuration(value, "--duration", /*allowInfinity=*/true);
      if (config.durationNs == INT64_MAX) config.durationNs = 0;
      if (config.durationNs < 0) throw Error("invalid --duration '" + value + "'", ErrorKind::Usage);
    } else if (args.option("-o", "--output", value)) {
      config.outputPath = value;
    } else if (args.option("", "--interval", value)) {
      interval = value;
    } else if (args.option("", "--rate", value)) {
      rate = value;
    } else if (args.option("", "--max-rate", value)) {
      config.maxRatePerSecond = parseRate(value, "--max-rate");
    } else if (args.option("", "--sample-events", value)) {
      if (value == "cpu-time") {
        config.sampleEvents = jfr::SampleEvents::kCpuTime;
      } else if (value == "execution") {
        config.sampleEvents = jfr::SampleEvents::kExecution;
      } else if (value == "both") {
        config.sampleEvents = jfr::SampleEvents::kBoth;
      } else {
        throw Error("invalid --sample-events '" + value + "': expected cpu-time, execution or both", ErrorKind::Usage);
      }
    } else if (args.option("", "--stack-depth", value)) {
      config.stackDepth = static_cast<uint32_t>(parseWholeNumber(value, "--stack-depth", 1, JFRBPF_MAX_USER_FRAMES, "record"));
    } else if (args.option("", "--sampler", value)) {
      if (value == "thread") {
        config.clockMode = record::ClockMode::PerThread;
      } else if (value == "cpu") {
        config.clockMode = record::ClockMode::PerCpu;
      } else {
        throw Error("invalid --sampler '" + value + "': expected thread or cpu", ErrorKind::Usage);
      }
    } else if (args.option("", "--ring-buffer", value)) {
      config.ringBufferBytes = parseRingBufferSize(value);
    } else if (args.option("", "--method-timing", value)) {
      config.methodTiming.timingFilter = timing::parseFilterOption("--method-timing", value);
    } else if (args.option("", "--method-trace", value)) {
      config.methodTiming.traceFilter = timing::parseFilterOption("--method-trace", value);
    } else if (args.option("", "--trace-threshold", value)) {
      config.methodTiming.traceThresholdNs = parseDuration(value, "--trace-threshold");
      traceThresholdGiven = true;
    } else if (args.optionalValue("--alloc", "its sampling interval", value)) {
      if (value.empty()) {
        config.allocation.enabled = true;
      } else {
        config.allocation = parseAllocationInterval(value);
      }
    } else if (args.optionalValue("--lock", "its threshold", value)) {
      config.lock.enabled = true;
      if (!value.empty()) {
        config.lock.thresholdNs = value == "0" ? 0 : parseDuration(value, "--lock");
        if (config.lock.thresholdNs < 0) throw Error("invalid --lock '" + value + "': a threshold of 0 or more", ErrorKind::Usage);
      }
    } else if (args.optionalValue("--context-only", "what it keeps", value)) {
      if (value.empty()) {
        config.contextOnly = record::ContextOnly::kInContext;
      } else if (value == "sampled") {
        config.contextOnly = record::ContextOnly::kSampledTrace;
      } else {
        throw Error("invalid --context-only '" + value + "': give no value (samples in any context) or 'sampled' "
                    "(samples in sampled traces)", ErrorKind::Usage);
      }
    } else if (args.optionalValue("--off-cpu", "its interval", value)) {
      config.offCpu.enabled = true;
      if (!value.empty()) {
        config.offCpu.intervalNs = value == "0" ? 0 : parseDuration(value, "--off-cpu");
        if (config.offCpu.intervalNs < 0 || config.offCpu.intervalNs > 4'000'000'000) {
          throw Error("invalid --off-cpu '" + value + "': the interval must be from 0 (every wait) to 4s", ErrorKind::Usage);
        }
      }
    } else if (args.option("", "--flush", value)) {
      config.flushNs = parseDuration(value, "--flush");
      if (config.flushNs < 100'000'000) {
        throw Error("invalid --flush '" + value + "': must be at least 100ms", ErrorKind::Usage);
      }
    } else if (args.option("", "--rotate", value)) {
      config.rotation.periodNs = parseDuration(value, "--rotate");
      if (config.rotation.periodNs < 1'000'000'000) {
        throw Error("invalid --rotate '" + value + "': must be at least 1s", ErrorKind::Usage);
      }
    } else if (args.option("", "--rotate-size", value)) {
      config.rotation.maxBytes = parseSize(value, "--rotate-size");
    } else if (args.option("", "--max-age", value)) {
      config.retention.maxAgeNs = parseDuration(value, "--max-age");
    } else if (args.option("", "--max-size", value)) {
      config.retention.maxBytes = parseSize(value, "--max-size");
    } else if (args.option("", "--max-total-size", value)) {
      config.retention.maxTotalBytes = parseSize(value, "--max-total-size");
    } else if (args.option("", "--memory-limit", value)) {
      config.memoryLimitBytes = parseSize(value, "--memory-limit");
      if (config.memoryLimitBytes < record::kMinimumMemoryLimit) {
        throw Error("invalid --memory-limit '" + value + "': must be at least 128m (jfrbpf's BPF rings, kernel "
                    "symbols and one JVM's metadata)",
                    ErrorKind::Usage);
      }
    } else if (args.option("", "--push", value)) {
      config.push.destinations.push_back(push::parsePushDestination(value));
    } else if (args.option("", "--push-credentials", value)) {
      config.push.credentialsFile = value;
      pushOptionGiven = "--push-credentials";
    } else if (args.option("", "--push-ca", value)) {
      if (access(value.c_str(), R_OK) != 0) {
        throw Error("cannot read --push-ca " + value + ": " + std::strerror(errno), ErrorKind::Usage);
      }
      config.push.caFile = value;
      pushOptionGiven = "--push-ca";
    } else if (args.option("", "--push-spool-size", value)) {
      config.push.spoolBytes = parseSize(value, "--push-spool-size");
      if (config.push.spoolBytes < (1u << 20)) {
        throw Error("invalid --push-spool-size '" + value + "': must be at least 1m", ErrorKind::Usage);
      }
      pushOptionGiven = "--push-spool-size";
    } else if (args.option("", "--push-timeout", value)) {
      config.push.timeoutNs = parseDuration(value, "--push-timeout");
      if (config.push.timeoutNs < 1'000'000'000) {
        throw Error("invalid --push-timeout '" + value + "': must be at least 1s", ErrorKind::Usage);
      }
      pushOptionGiven = "--push-timeout";
    } else if (args.option("", "--timing-period", value)) {
      config.methodTiming.timingPeriodNs = parseDuration(value, "--timing-period");
      if (config.methodTiming.timingPeriodNs < 1'000'000) {
        throw Error("invalid --timing-period '" + value + "': must be at least 1ms", ErrorKind::Usage);
      }
      timingPeriodGiven = true;
    } else {
      args.rejectCurrent("record");
    }
  }
  if (all && (!config.pids.empty() || !config.command.empty())) {
    throw Error("--all records every JVM: give it without -p or a command", ErrorKind::Usage);
  }
  if (!config.containerFilter.empty() && !all) {
    throw Error("--filter-container goes with --all", ErrorKind::Usage);
  }
  if (config.pids.empty() && config.command.empty() && !all) {
    throw Error("nothing to profile: give -p PID, -- COMMAND or --all (see jfrbpf record --help)", ErrorKind::Usage);
  }
  if (!config.pids.empty() && !config.command.empty()) {
    throw Error("give either -p PID or -- COMMAND, not both", ErrorKind::Usage);
  }
  if (config.retention.enabled() && !config.rotation.enabled() && !all) {
    throw Error("--max-age, --max-size and --max-total-size keep a directory of recordings: add --rotate TIME or "
                "use --all",
                ErrorKind::Usage);
  }
  if (config.rotation.enabled() && config.rotation.maxBytes > 0 && config.rotation.maxBytes < (1u << 20)) {
    throw Error("invalid --rotate-size: must be at least 1m (a file holds its metadata and constants)",
                ErrorKind::Usage);
  }
  if (pushOptionGiven && !config.push.enabled()) {
    throw Error(std::string(pushOptionGiven) + " needs --push", ErrorKind::Usage);
  }
  const push::CredentialSource credentials = push::CredentialSource::load(config.push.credentialsFile);
  for (const push::PushDestination& destination : config.push.destinations) {
    push::headersFor(destination, credentials);  // a credential that cannot be used is said now
    if (destination.kind == push::PushKind::kPyroscope && config.sampleEvents == jfr::SampleEvents::kCpuTime) {
      throw Error("--push " + destination.name() + ": Pyroscope reads jdk.ExecutionSample, which --sample-events "
                  "cpu-time leaves out: use --sample-events both or execution",
                  ErrorKind::Usage);
    }
  }
  if (!interval.empty() && !rate.empty()) {
    throw Error("give either --interval or --rate, not both", ErrorKind::Usage);
  }
  if (traceThresholdGiven && config.methodTiming.traceFilter.empty()) {
    throw Error("--trace-threshold needs --method-trace", ErrorKind::Usage);
  }
  if (timingPeriodGiven && config.methodTiming.timingFilter.empty()) {
    throw Error("--timing-period needs --method-timing", ErrorKind::Usage);
  }
  if (!interval.empty()) {
    config.periodNs = parseDuration(interval, "--interval");
    if (config.periodNs < 10'000) {
      throw Error("invalid --interval '" + interval + "': must be at least 10us", ErrorKind::Usage);
    }
  } else if (!rate.empty()) {
    double perSecond = parseRate(rate, "--rate");
    double cpus = static_cast<double>(record::onlineCpus().size());
    config.periodNs = static_cast<int64_t>(cpus * 1e9 / perSecond);
    if (config.periodNs < 10'000) throw Error("invalid --rate '" + rate + "': too high", ErrorKind::Usage);
    config.cpuThrottle = rate;
  }
  const bool directoryOutput = all || config.rotation.enabled();
  config.outputOwner = sudoUser();  // under sudo, what is recorded belongs to the user who asked for it
  if (config.outputPath.empty()) config.outputPath = defaultOutputName(config, directoryOutput);
  if (config.rotation.enabled() && !all) {
    record::prepareOutputDirectory(config.outputPath, "--rotate", config.outputOwner);
  } else if (!all) {
    requireWritableDestination(config.outputPath);
    if (config.push.enabled()) {
      // The spool goes beside the file: refused now, before anything is loaded or attached, where others
      // could plant links in it (/tmp). --rotate's and --all's directories are checked as they are prepared.
      const std::filesystem::path file(config.outputPath);
      record::openOutputDirectory(file.has_parent_path() ? file.parent_path().string() : ".",
                                  record::kPushNeedsTheDirectory);
    }
  }
  config.progressLine = isatty(STDERR_FILENO) != 0;
  config.measureSampleCost = debugOption("cost");
  record::RecordSummary summary = all ? record::recordHost(config) : record::recordProcesses(config);
  if (all) {
    printHostSummary(summary);
  } else {
    printSummary(summary, config.periodNs);
  }
  return kExitOk;
}

}  // namespace jfrbpf::cli
