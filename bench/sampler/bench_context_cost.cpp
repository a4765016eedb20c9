// 8. The BPF time per sample of reading OpenTelemetry thread contexts (bpf/thread_context.bpf.h), side by side
// in interleaved rounds on one workload (tests/otel/context_switcher: two threads switching every 0.3 ms):
// a process that publishes no context (its variable is never looked for: one map lookup), one whose threads
// keep a null variable, and one whose threads are in a context with two attributes half of the time. With
// --compare, each other build measures the first case in the same rounds (a build before the read existed).
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "base/error.h"
#include "bench/sampler/distribution.h"
#include "bench/sampler/jfrbpf_run.h"
#include "bench/sampler/proc_probe.h"
#include "bench/sampler/scenarios.h"
#include "bench/sampler/workloads.h"

namespace jfrbpf::bench {
namespace {

using namespace std::chrono_literals;

struct ContextCase {
  const char* label;
  const char* mode;  // context_switcher's; "" for the default
};

constexpr ContextCase kCases[] = {
    {"no context published", "--unpublished"},
    {"null thread variable", "--null"},
    {"a record with two attributes", ""},
};

}  // namespace

void benchContextCost(const BenchEnv& env, Report& report) {
  const int rounds = env.quick ? 2 : env.repeats;
  std::map<std::string, std::vector<double>> p50, p90;
  std::vector<double> loads;
  // (label, binary, mode): every case with the build under test, the first with each build compared.
  struct Run {
    std::string label;
    std::string binary;
    const char* mode;
  };
  std::vector<Run> runs;
  for (const ContextCase& c : kCases) runs.push_back({c.label, env.jfrbpf, c.mode});
  for (const std::string& other : env.compareJfrbpf) {
    runs.push_back({std::string(kCases[0].label) + ", jfrbpf " + other, other, kCases[0].mode});
  }
  try {
    for (int round = 0; round < rounds; ++round) {
      for (size_t i = 0; i < runs.size(); ++i) {
        const Run& run = runs[i];
        progress("context-cost: " + run.label + ", round " + std::to_string(round + 1));
        loads.push_back(loadAverage());
        std::vector<std::string> argv = {env.contextSwitcher};
        if (*run.mode != '\0') argv.push_back(run.mode);
        argv.insert(argv.end(), {"2", "60", "300"});
        ChildProcess workload(argv);
        if (!workload.awaitLine("switching", 10s)) throw Error("context_switcher did not start");
        BenchEnv with = env;
        with.jfrbpf = run.binary;
        JfrbpfRun jfrbpf(with, {"-p", std::to_string(workload.pid()), "--interval", "1ms", "-d", "4s"},
                         "context-cost-" + std::to_string(round) + "-" + std::to_string(i), /*sampleCosts=*/true);
        JfrbpfSummary summary = jfrbpf.finish(60s);
        p50[run.label].push_back(static_cast<double>(summary.counters["sample cost p50 ns"]) / 1000);
        p90[run.label].push_back(static_cast<double>(summary.counters["sample cost p90 ns"]) / 1000);
      }
    }
  } catch (const std::exception& e) {
    report.failed("BPF time per sample, thread context", e.what());
    return;
  }
  for (const Run& run : runs) {
    if (p50[run.label].size() < static_cast<size_t>(rounds)) continue;  // already reported
    report.add("BPF time per sample, " + run.label,
               "p50 " + describe(distributionOf(p50[run.label]), 2, "us") + "; p90 " +
                   describe(distributionOf(p90[run.label]), 2, "us"),
               describeLoad(loads),
               "tests/otel/context_switcher, 2 threads, --interval 1ms, 4 s; the runs interleaved in each round");
    p50[run.label].clear();
  }
}

}  // namespace jfrbpf::bench
