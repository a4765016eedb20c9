// 8. The BPF time per sample of reading OpenTelemetry thread contexts (bpf/thread_context.bpf.h), side by side
// in interleaved rounds on one workload (tests/otel/context_switcher: two threads switching every 0.3 ms):
// a process that publishes no context (its variable is never looked for: one map lookup), one whose threads
// keep a null variable, and one whose threads are in a context with two attributes half of the time.
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
  try {
    for (int round = 0; round < rounds; ++round) {
      for (const ContextCase& c : kCases) {
        progress(std::string("context-cost: ") + c.label + ", round " + std::to_string(round + 1));
        loads.push_back(loadAverage());
        std::vector<std::string> argv = {env.contextSwitcher};
        if (*c.mode != '\0') argv.push_back(c.mode);
        argv.insert(argv.end(), {"2", "60", "300"});
        ChildProcess workload(argv);
        if (!workload.awaitLine("switching", 10s)) throw Error("context_switcher did not start");
        JfrbpfRun jfrbpf(env, {"-p", std::to_string(workload.pid()), "--interval", "1ms", "-d", "4s"},
                         "context-cost-" + std::to_string(round) + "-" + std::to_string(&c - kCases),
                         /*sampleCosts=*/true);
        JfrbpfSummary summary = jfrbpf.finish(60s);
        p50[c.label].push_back(static_cast<double>(summary.counters["sample cost p50 ns"]) / 1000);
        p90[c.label].push_back(static_cast<double>(summary.counters["sample cost p90 ns"]) / 1000);
      }
    }
  } catch (const std::exception& e) {
    report.failed("BPF time per sample, thread context", e.what());
    return;
  }
  for (const ContextCase& c : kCases) {
    report.add(std::string("BPF time per sample, ") + c.label,
               "p50 " + describe(distributionOf(p50[c.label]), 2, "us") + "; p90 " +
                   describe(distributionOf(p90[c.label]), 2, "us"),
               describeLoad(loads),
               "tests/otel/context_switcher, 2 threads, --interval 1ms, 4 s; the cases interleaved in each round");
  }
}

}  // namespace jfrbpf::bench
