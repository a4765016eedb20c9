// 5. Memory: jfrbpf's resident set over a long 1 kHz recording of a JVM (peak = the kernel's VmHWM), the
// kernel memory of its BPF maps, and the size of the native unwind tables for a JVM and for every
// process on the host (tests/unwind's unwind_table_report).
#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "bench/sampler/bpf_probe.h"
#include "bench/sampler/distribution.h"
#include "bench/sampler/jfrbpf_run.h"
#include "bench/sampler/proc_probe.h"
#include "bench/sampler/run_windows.h"
#include "bench/sampler/scenarios.h"
#include "bench/sampler/workloads.h"

namespace jfrbpf::bench {
namespace {

using namespace std::chrono_literals;

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kTargetRssMiB = 100;

// "... 270262 rows = 2.06 MiB ..." on the line that starts with `prefix`: "2.06 MiB (270262 rows)".
std::string tableSize(const std::string& output, const std::string& prefix) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with(prefix)) continue;
    size_t rows = line.find(" rows = ");
    if (rows == std::string::npos) continue;
    size_t countStart = line.rfind(' ', rows - 1);
    size_t mib = line.find(" MiB", rows);
    if (countStart == std::string::npos || mib == std::string::npos) continue;
    return line.substr(rows + 8, mib - rows - 8) + " MiB (" + line.substr(countStart + 1, rows - countStart - 1) +
           " rows of 8 bytes)";
  }
  return "";
}

std::string runReport(const BenchEnv& env, const std::vector<std::string>& args) {
  std::vector<std::string> command = {env.unwindTableReport};
  command.insert(command.end(), args.begin(), args.end());
  ChildProcess tool(command, {.keepStderr = true, .stderrPath = env.scratch("unwind-report.log")});
  std::string output = tool.readAll(300s);
  tool.wait(10s);
  return output;
}

void reportUnwindTables(const BenchEnv& env, pid_t jvm, const std::string& load, Report& report) {
  if (env.unwindTableReport.empty()) {
    report.note("Unwind table sizes skipped: tests/unwind's unwind_table_report was not built.");
    return;
  }
  std::string pid = std::to_string(jvm);
  std::string forJvm = tableSize(runReport(env, {"pid", pid}), "pid " + pid + ":");
  std::string forHost = tableSize(runReport(env, {"system"}), "mapped files:");
  report.add("Unwind tables, one JDK 17 JVM (its executable mappings)", forJvm.empty() ? "no result" : forJvm, load,
             "`unwind_table_report pid PID` (tests/unwind): rows jfrbpf compiles from .eh_frame/.debug_frame");
  report.add("Unwind tables, every process on the host (files deduplicated)", forHost.empty() ? "no result" : forHost,
             load, "`unwind_table_report system`; the loader's table map holds 4 Mi rows (32 MiB) by default");
}

}  // namespace

void benchMemory(const BenchEnv& env, Report& report) {
  BpfStatsSwitch stats;  // awaitFirstSample watches run_cnt
  const auto duration = env.seconds(600, 60);
  std::string load = describeLoad({loadAverage()});
  progress("memory: " + std::to_string(duration.count()) + "-s recording at 1 kHz");
  try {
    ChildProcess workload = startJavaDeep(env, env.jdk17, 64, 2, false);
    JfrbpfRun jfrbpf(
        env, {"-p", std::to_string(workload.pid()), "--interval", "1ms", "-d", std::to_string(duration.count()) + "s"},
        "memory");
    if (!jfrbpf.awaitFirstSample(180s)) {
      jfrbpf.finish(60s);
      throw Error("jfrbpf never sampled the workload");
    }
    sleepFor(2s);
    uint64_t mapBytes = bpfMapBytes(jfrbpf.pid());
    uint64_t maxRss = 0, peak = 0;
    RssBreakdown atMax;
    std::vector<double> rssMiB;
    while (std::optional<MemoryUse> m = memoryOf(jfrbpf.pid())) {
      if (m->rssBytes == 0) break;  // a zombie: exited, not yet reaped
      if (m->rssBytes > maxRss) atMax = rssBreakdown(jfrbpf.pid());
      maxRss = std::max(maxRss, m->rssBytes);
      peak = std::max(peak, m->peakRssBytes);
      rssMiB.push_back(static_cast<double>(m->rssBytes) / kMiB);
      sleepFor(1s);
    }
    JfrbpfSummary summary = jfrbpf.finish(120s);
    double peakMiB = static_cast<double>(std::max(peak, maxRss)) / kMiB;
    Distribution rss = distributionOf(rssMiB);
    std::error_code ec;
    auto fileBytes = static_cast<double>(std::filesystem::file_size(jfrbpf.outputPath(), ec));
    auto mib = [](uint64_t bytes) { return fixed(static_cast<double>(bytes) / kMiB, 1); };
    report.add({.measure = "Loader peak RSS, " + std::to_string(duration.count()) + "-s 1 kHz recording of a JVM",
                .result = fixed(peakMiB, 1) + " MiB peak (VmHWM); RSS over the run " + describe(rss, 1, "MiB") +
                          "; at its largest: BPF maps mapped " + mib(atMax.bpfMaps) + " MiB, heap/anonymous " +
                          mib(atMax.anonymous) + " MiB, files " + mib(atMax.files) + " MiB; " +
                          std::to_string(summary.samples) + " samples, " + fixed(fileBytes / kMiB, 1) + " MiB .jfr",
                .target = "≤ 100 MB",
                .verdict = peakMiB * kMiB <= kTargetRssMiB * 1e6 ? Verdict::Met : Verdict::Missed,
                .load = load,
                .how = "/proc/PID/status VmRSS every second and VmHWM of jfrbpf, /proc/PID/smaps at the largest "
                       "RSS; 2 busy JVM threads, 64-frame stacks, `--interval 1ms`"});
    report.add("BPF map memory held by jfrbpf (kernel, not in RSS)",
               fixed(static_cast<double>(mapBytes) / kMiB, 1) + " MiB", load,
               "sum of \"memlock\" in /proc/PID/fdinfo of jfrbpf's BPF map fds (ring buffer, unwind rows, "
               "tables)");
    reportUnwindTables(env, workload.pid(), load, report);
  } catch (const Error& e) {
    report.failed("Loader peak RSS", e.what());
  }
}

}  // namespace jfrbpf::bench
