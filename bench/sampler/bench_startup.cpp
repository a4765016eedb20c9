// 6. Start-up: from starting `jfrbpf record -p PID` to its first sample, split where the kernel lets us
// see it: the sampler program appears among jfrbpf's fds once loaded and verified; its run count leaves
// zero at the first sample (after agent attach and replay, unwind tables, perf events).
#include <chrono>
#include <string>
#include <vector>

#include "bench/sampler/bpf_probe.h"
#include "bench/sampler/distribution.h"
#include "bench/sampler/jfrbpf_run.h"
#include "bench/sampler/proc_probe.h"
#include "bench/sampler/scenarios.h"
#include "bench/sampler/workloads.h"
#include "userspace/base/error.h"

namespace jfrbpf::bench {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kPoll = 1ms;

struct Phases {
  std::vector<double> loaded, first, loads;  // seconds from start
  uint32_t verifiedInstructions = 0;
};

void measureOnce(const BenchEnv& env, bool jvm, int index, Phases& phases) {
  ChildProcess workload = jvm ? startJavaDeep(env, env.jdk17, 64, 2, false) : startNativeChain(env, 20, 2, false);
  auto start = Clock::now();
  JfrbpfRun jfrbpf(env, {"-p", std::to_string(workload.pid()), "--interval", "1ms", "-d", "2s"},
                   std::string(jvm ? "startup-jvm-" : "startup-c-") + std::to_string(index));
  const ProgramProbe* program = jfrbpf.awaitProgram(300s, kPoll);
  auto loaded = Clock::now();
  bool sampled = program && jfrbpf.awaitFirstSample(300s, kPoll);
  auto first = Clock::now();
  if (program) phases.verifiedInstructions = program->verifiedInstructions();
  jfrbpf.finish(120s);
  if (!sampled) throw Error("jfrbpf never sampled the workload");
  phases.loaded.push_back(std::chrono::duration<double>(loaded - start).count());
  phases.first.push_back(std::chrono::duration<double>(first - start).count());
}

}  // namespace

void benchStartup(const BenchEnv& env, Report& report) {
  BpfStatsSwitch stats;
  for (bool jvm : {true, false}) {
    const std::string what = jvm ? "a JVM (JDK 17, agent attached on the fly)" : "a C program";
    Phases phases;
    try {
      for (int i = 0; i < env.repeats; ++i) {
        progress("start-up, " + what + ": run " + std::to_string(i + 1) + "/" + std::to_string(env.repeats));
        phases.loads.push_back(loadAverage());
        measureOnce(env, jvm, i, phases);
      }
    } catch (const Error& e) {
      report.failed("Start-up to first sample, " + what, e.what());
      continue;
    }
    std::vector<double> rest;
    for (size_t i = 0; i < phases.first.size(); ++i) rest.push_back(phases.first[i] - phases.loaded[i]);
    report.add("Start-up to first sample, " + what,
               describe(distributionOf(phases.first), 2, "s") + "; of which BPF load + verify " +
                   describe(distributionOf(phases.loaded), 2, "s") + ", then attach/replay/tables/perf events " +
                   describe(distributionOf(rest), 2, "s"),
               describeLoad(phases.loads),
               "wall time from spawning `jfrbpf record -p PID` to on_cpu_clock's run_cnt > 0 (1 ms polling of "
               "its fds and bpf_stats); \"load + verify\" ends when the program fd appears (" +
                   std::to_string(phases.verifiedInstructions) + " verified instructions)");
  }
}

}  // namespace jfrbpf::bench
