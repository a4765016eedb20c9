// What a timed method invocation costs with jfrbpf (issue 7), as whole-program measurements on this machine:
//   in this process, a pair of 5-byte-NOP stubs unprobed and with the cheapest possible uprobe program on
//   each (what timing by an enter and an exit uprobe could cost at best), and one traced invocation: a
//   call of a trace stub with jfrbpf's trace probe on it (plus the kernel's bpf_stats run time);
//   in JVMs, a small method in a loop, on one thread and on 8 threads calling the same method: JDK 17 alone,
//   with `jfrbpf record --method-timing`, and, when a JDK 25 is installed, JDK 25 alone, with its own
//   jdk.MethodTiming, and with jfrbpf; each measured in its steady state (TimingBench.java).
// Every figure is CPU time per invocation (user + system: uprobe handling runs in the kernel on the
// caller's thread), the median of several rounds. Prints a Markdown table. Needs root.
//
//   sudo build/bench/timing/timing_bench [--quick]
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <signal.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "tests/support/child_process.h"
#include "timing_bench_bare.skel.h"
#include "userspace/record/sampling/bpf_sampler.h"
#include "userspace/timing/probe_sites.h"

extern "C" {
void timing_bench_enter(void* env, void* klass, int hookIndex);
void timing_bench_exit(void* env, void* klass, int hookIndex);
void timing_bench_traced(uint32_t hookIndex, uint64_t entryNs, uint64_t durationNs, uint64_t detail, uint64_t address,
                         uint32_t session);
}
// The agent session the bench's calls are made for, as the trace probe's attachment expects.
constexpr uint32_t kBenchSession = 1;
// The shape of the agent's trace stub (jvmsupport/agent/hook_stubs.cpp): a 5-byte NOP, then ret.
__asm__(".text\n.p2align 4\n.globl timing_bench_enter\n.type timing_bench_enter,@function\ntiming_bench_enter:\n"
        ".cfi_startproc\n.byte 0x0f,0x1f,0x44,0x00,0x00\nret\n.cfi_endproc\n.size timing_bench_enter,.-timing_bench_enter\n"
        ".p2align 4\n.globl timing_bench_exit\n.type timing_bench_exit,@function\ntiming_bench_exit:\n"
        ".cfi_startproc\n.byte 0x0f,0x1f,0x44,0x00,0x00\nret\n.cfi_endproc\n.size timing_bench_exit,.-timing_bench_exit\n"
        ".p2align 4\n.globl timing_bench_traced\n.type timing_bench_traced,@function\ntiming_bench_traced:\n"
        ".cfi_startproc\n.byte 0x0f,0x1f,0x44,0x00,0x00\nret\n.cfi_endproc\n.size timing_bench_traced,.-timing_bench_traced\n");

namespace {

using namespace std::chrono_literals;
using jfrbpf::test::ChildOptions;
using jfrbpf::test::ChildProcess;

struct Settings {
  int pairs = 200000;  // stub pairs per round, in process
  int calls = 200000;  // Java calls per round
  int rounds = 7;
};

ChildOptions withStderr() {
  ChildOptions options;
  options.captureStderr = true;
  return options;
}

double threadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

// CPU ns per enter+exit pair, median over rounds.
double measurePairs(const Settings& s) {
  std::vector<double> rounds;
  const int hook = static_cast<int>(0 | JFRBPF_HOOK_TIMED);
  for (int r = 0; r < s.rounds; ++r) {
    double start = threadCpuNs();
    for (int i = 0; i < s.pairs; ++i) {
      timing_bench_enter(nullptr, nullptr, hook);
      timing_bench_exit(nullptr, nullptr, hook);
    }
    rounds.push_back((threadCpuNs() - start) / s.pairs);
  }
  return median(rounds);
}

struct ProbedSites {
  jfrbpf::timing::ProbeTarget enter = jfrbpf::timing::locateProbeSite(getpid(), reinterpret_cast<uintptr_t>(&timing_bench_enter));
  jfrbpf::timing::ProbeTarget exit = jfrbpf::timing::locateProbeSite(getpid(), reinterpret_cast<uintptr_t>(&timing_bench_exit));
};

double measureBareUprobes(const Settings& s) {
  ProbedSites sites;
  timing_bench_bare* skel = timing_bench_bare::open_and_load();
  if (!skel) throw jfrbpf::Error("loading the bare uprobe program failed");
  std::vector<bpf_link*> links;
  for (const auto* site : {&sites.enter, &sites.exit}) {
    bpf_link* link = bpf_program__attach_uprobe_opts(skel->progs.on_bare_hit, getpid(), site->path.c_str(),
                                                     site->fileOffset, nullptr);
    if (link) links.push_back(link);
  }
  double ns = links.size() == 2 ? measurePairs(s) : 0;
  for (bpf_link* link : links) bpf_link__destroy(link);
  timing_bench_bare::destroy(skel);
  return ns;
}

// CPU ns per call of the trace stub, median over rounds. The records are drained between chunks of calls
// (as the recorder does every 50 ms), outside the measured time, so the ring never fills.
double measureTraceCalls(const Settings& s, ring_buffer* traces) {
  constexpr int kChunk = 1000;
  std::vector<double> rounds;
  const uint32_t hook = JFRBPF_HOOK_TRACED;
  for (int r = 0; r < s.rounds; ++r) {
    double spent = 0;
    for (int done = 0; done < s.pairs; done += kChunk) {
      double start = threadCpuNs();
      for (int i = 0; i < kChunk; ++i) timing_bench_traced(hook, 0, 0, 0, 0, kBenchSession);
      spent += threadCpuNs() - start;
      ring_buffer__consume(traces);
    }
    rounds.push_back(spent / (s.pairs / kChunk * kChunk));
  }
  return median(rounds);
}

double runTimeNs(int programFd) {
  bpf_prog_info info{};
  uint32_t length = sizeof info;
  if (programFd < 0 || bpf_obj_get_info_by_fd(programFd, &info, &length) != 0 || info.run_cnt == 0) return 0;
  return static_cast<double>(info.run_time_ns) / static_cast<double>(info.run_cnt);
}

struct TraceFigures {
  double callNs = 0;
  double programNs = 0;  // bpf_stats run time of the trace program (walk + ring buffer)
  uint64_t records = 0;
  std::string path;
};

// jfrbpf's trace probe on this process's own trace stub: one uprobe hit and a stack walk of this process
// (native frames through .eh_frame, no JVM) per traced invocation.
TraceFigures measureTraceProbe(const Settings& s) {
  jfrbpf::timing::ProbeTarget site =
      jfrbpf::timing::locateProbeSite(getpid(), reinterpret_cast<uintptr_t>(&timing_bench_traced));
  jfrbpf::record::SamplerConfig config;
  config.methodTraces = true;
  jfrbpf::record::BpfSampler sampler(config);
  sampler.attachTraceProbe(static_cast<uint32_t>(getpid()), site.path, site.fileOffset, kBenchSession);
  std::unique_ptr<ring_buffer, decltype(&ring_buffer__free)> ring(
      ring_buffer__new(sampler.traceRingBufferMapFd(), [](void*, void*, size_t) { return 0; }, nullptr, nullptr),
      &ring_buffer__free);
  if (!ring) throw jfrbpf::Error("opening the traces ring buffer failed");
  ring_buffer* traces = ring.get();
  TraceFigures figures;
  figures.callNs = measureTraceCalls(s, traces);
  // Run-time statistics only while the fd is open: a separate pass, so they do not inflate the calls above.
  int statsFd = bpf_enable_stats(BPF_STATS_RUN_TIME);
  if (statsFd >= 0) {
    measureTraceCalls(s, traces);
    figures.programNs = runTimeNs(sampler.traceProgramFd());
    close(statsFd);
  }
  figures.path = jfrbpf::timing::describe(
      jfrbpf::timing::readProbeSiteState(getpid(), reinterpret_cast<uintptr_t>(&timing_bench_traced)));
  figures.records = sampler.readTimerCounters()[JFRBPF_TIMER_TRACES] +
                    sampler.readTimerCounters()[JFRBPF_TIMER_TRACES_LOST_RINGBUF_FULL];
  if (figures.records == 0) figures.path += " (the probe never ran!)";
  return figures;
}

// One JVM run: the median CPU ns per call of TimingBench.work, with jfrbpf attached when `jfrbpfArgs` is set.
std::optional<double> javaRun(const std::string& javaHome, const std::vector<std::string>& jvmOptions,
                              const std::optional<std::vector<std::string>>& jfrbpfArgs, const Settings& s,
                              int threads, const std::filesystem::path& scratch, std::string& log) {
  std::filesystem::path go = scratch / "go";
  std::filesystem::remove(go);
  std::vector<std::string> argv{javaHome + "/bin/java"};
  argv.insert(argv.end(), jvmOptions.begin(), jvmOptions.end());
  argv.insert(argv.end(), {"-cp", TIMING_BENCH_CLASSES, "TimingBench", go.string(), std::to_string(s.calls),
                           std::to_string(s.rounds), std::to_string(threads)});
  ChildProcess jvm(argv, withStderr());
  std::string pid;
  while (auto line = jvm.readLine(120s)) {
    if (line->rfind("ready ", 0) == 0) {
      pid = line->substr(6);
      break;
    }
  }
  if (pid.empty()) return std::nullopt;
  std::optional<ChildProcess> jfrbpf;
  if (jfrbpfArgs) {
    std::vector<std::string> command{TIMING_BENCH_JFRBPF, "record", "-p", pid, "-o", (scratch / "bench.jfr").string()};
    command.insert(command.end(), jfrbpfArgs->begin(), jfrbpfArgs->end());
    jfrbpf.emplace(command, withStderr());
    bool ready = false;
    while (auto line = jfrbpf->readLine(180s)) {
      log += *line + "\n";
      if (line->find("instrumented") != std::string::npos) {
        ready = true;
        break;
      }
    }
    if (!ready) return std::nullopt;
  }
  std::ofstream(go).put('\n');
  std::optional<double> result;
  while (auto line = jvm.readLine(300s)) {
    double ns = 0;
    if (std::sscanf(line->c_str(), "median-ns %lf", &ns) == 1) {
      result = ns;
      break;
    }
  }
  if (jfrbpf) {
    jfrbpf->signal(SIGINT);
    jfrbpf->wait(60s);
    log += jfrbpf->readAll(5s);
  }
  return result;
}

// Wall milliseconds to open and load the sampler's BPF object (the verifier's work), median of three.
double loadMs(bool methodTraces) {
  std::vector<double> runs;
  for (int i = 0; i < 3; ++i) {
    jfrbpf::record::SamplerConfig config;
    config.methodTraces = methodTraces;
    auto start = std::chrono::steady_clock::now();
    jfrbpf::record::BpfSampler sampler(config);
    runs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return median(runs);
}

std::string figure(std::optional<double> ns) {
  if (!ns) return "failed";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", *ns);
  return text;
}

std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      s.pairs = s.calls = 50000;
      s.rounds = 3;
    } else {
      std::fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
      return 2;
    }
  }
  if (geteuid() != 0) {
    std::fprintf(stderr, "timing_bench: needs root (BPF uprobes, attaching to JVMs)\n");
    return 3;
  }
  utsname uts{};
  uname(&uts);
  std::printf("Method timing cost, %s %s, %ld CPUs, load average %s; median of %d rounds, CPU time per call\n\n",
              uts.sysname, uts.release, sysconf(_SC_NPROCESSORS_ONLN), loadAverage().c_str(), s.rounds);
  try {
    double plain = measurePairs(s);
    double bare = measureBareUprobes(s);
    TraceFigures trace = measureTraceProbe(s);
    std::printf("| what | ns per invocation |\n|---|---|\n");
    std::printf("| two nop5 stubs, no uprobes | %.1f |\n", plain);
    std::printf("| bare uprobe pair on nop5 (counting program): the floor of timing by uprobes | %.1f |\n", bare);
    std::printf("| jfrbpf trace probe, one traced invocation (uprobe + stack walk, no JVM) | %.1f |\n", trace.callNs);
    std::printf("| ... of which BPF run time (bpf_stats) | %.1f |\n", trace.programNs);
    std::printf("| trace uprobe path in effect | %s |\n", trace.path.c_str());

    std::string dir = (std::filesystem::temp_directory_path() / "timing-bench-XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) throw jfrbpf::Error("cannot create a scratch directory");
    std::filesystem::path scratch = dir;
    std::string log;
    const std::vector<std::string> timing{"--method-timing", "TimingBench::work"};
    // Per-invocation overhead on one thread and on kContended threads calling the one timed method.
    constexpr int kContended = 8;
    auto overhead = [](std::optional<double> timed, std::optional<double> plain) -> std::optional<double> {
      if (!timed || !plain) return std::nullopt;
      return *timed - *plain;
    };
    auto row = [](const char* what, std::optional<double> one, std::optional<double> many) {
      std::printf("| %s | %s | %s |\n", what, figure(one).c_str(), figure(many).c_str());
    };
    std::printf("\n| small method, ns per call | 1 thread | %d threads |\n|---|---|---|\n", kContended);
    auto measure = [&](const std::string& home, const std::vector<std::string>& jvmOptions,
                       const std::optional<std::vector<std::string>>& jfrbpfArgs) {
      return std::pair{javaRun(home, jvmOptions, jfrbpfArgs, s, 1, scratch, log),
                       javaRun(home, jvmOptions, jfrbpfArgs, s, kContended, scratch, log)};
    };
    auto jdk17 = measure(TIMING_BENCH_JDK17, {}, std::nullopt);
    auto jdk17Timed = measure(TIMING_BENCH_JDK17, {}, timing);
    row("JDK 17, untimed", jdk17.first, jdk17.second);
    row("JDK 17 + jfrbpf --method-timing", jdk17Timed.first, jdk17Timed.second);
    row("**jfrbpf overhead per timed invocation (JDK 17)**", overhead(jdk17Timed.first, jdk17.first),
        overhead(jdk17Timed.second, jdk17.second));
    std::string jdk25Home = TIMING_BENCH_JDK25;
    if (!jdk25Home.empty() && std::filesystem::exists(jdk25Home + "/bin/java")) {
      auto jdk25 = measure(jdk25Home, {}, std::nullopt);
      auto jdk25Own = measure(jdk25Home,
                              {"-XX:StartFlightRecording:filename=" + (scratch / "jdk.jfr").string() +
                               ",jdk.MethodTiming#filter=TimingBench::work"},
                              std::nullopt);
      auto jdk25Timed = measure(jdk25Home, {}, timing);
      row("JDK 25, untimed", jdk25.first, jdk25.second);
      row("JDK 25 own jdk.MethodTiming", jdk25Own.first, jdk25Own.second);
      row("JDK 25 + jfrbpf --method-timing", jdk25Timed.first, jdk25Timed.second);
      row("JDK 25's own overhead per timed invocation", overhead(jdk25Own.first, jdk25.first),
          overhead(jdk25Own.second, jdk25.second));
      row("**jfrbpf overhead per timed invocation (JDK 25)**", overhead(jdk25Timed.first, jdk25.first),
          overhead(jdk25Timed.second, jdk25.second));
    } else {
      std::printf("| JDK 25 | not installed | |\n");
    }
    std::filesystem::remove_all(scratch);
    std::printf("\n| BPF object load (verifier) | ms |\n|---|---|\n");
    std::printf("| sampling (and method timing) only: trace program not loaded | %.0f |\n", loadMs(false));
    std::printf("| with method traces (walker verified for the trace program too) | %.0f |\n", loadMs(true));
    std::printf("\nload average after: %s\n", loadAverage().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "timing_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
