// 6. Start-up: from starting `jfrbpf record -p PID` to its first sample, split where the kernel lets us
// see it: the sampler program appears among jfrbpf's fds once loaded and verified (the agent attaches
// meanwhile); its run count leaves zero at the first sample (after the agent's tables, unwind tables, perf
// events). Measured for a JVM, a C program, and a JVM recorded with --off-cpu and method traces, whose
// trace probe and closing off-CPU pass (each with its own copy of the stack walker) load in the background
// once sampling runs: when the last of them appears is measured too. With the instructions the verifier
// processed for every program that walks stacks.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/number_text.h"
#include "bench/sampler/bpf_probe.h"
#include "bench/sampler/distribution.h"
#include "bench/sampler/jfrbpf_run.h"
#include "bench/sampler/proc_probe.h"
#include "bench/sampler/scenarios.h"
#include "bench/sampler/workloads.h"

namespace jfrbpf::bench {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kPoll = 1ms;
// The programs with a copy of the walker (the kernel keeps 15 characters of a name).
constexpr const char* kWalkerPrograms[] = {"on_cpu_clock", "on_method_trace", "on_rseq_update", "flush_off_cpu"};

enum class Target { kJvm, kNative, kJvmAllWalkers };

struct Phases {
  std::vector<double> loaded, first, late, loads;  // seconds from start
  std::string verified;                      // "on_cpu_clock 522,782; ..."
};

std::vector<std::string> recordArgs(Target target, pid_t pid) {
  std::vector<std::string> args{"-p", std::to_string(pid), "--interval", "1ms", "-d", "2s"};
  if (target == Target::kJvmAllWalkers) {
    args.insert(args.end(), {"--off-cpu", "--method-trace", "SamplerWorkload::leafWork", "--trace-threshold", "1s"});
  }
  return args;
}

std::string verifiedByProgram(pid_t pid) {
  std::string text;
  for (const char* name : kWalkerPrograms) {
    std::optional<ProgramProbe> program = ProgramProbe::find(pid, name);
    if (!program) continue;
    if (!text.empty()) text += ", ";
    text += std::string(name) + " " + groupThousands(program->verifiedInstructions());
  }
  return text;
}

// Waits until every walker program `target` loads is among jfrbpf's fds; false if it ends first.
bool awaitWalkers(const JfrbpfRun& jfrbpf, Target target, std::chrono::seconds timeout) {
  const size_t expected = target == Target::kJvmAllWalkers ? std::size(kWalkerPrograms) : 1;
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    size_t present = 0;
    for (const char* name : kWalkerPrograms) present += ProgramProbe::find(jfrbpf.pid(), name) ? 1 : 0;
    if (present >= expected) return true;
    std::this_thread::sleep_for(kPoll);
  }
  return false;
}

void measureOnce(const BenchEnv& env, Target target, int threads, int index, Phases& phases) {
  ChildProcess workload = target == Target::kNative ? startNativeChain(env, 20, threads, false)
                                                    : startJavaDeep(env, env.jdk17, 64, threads, false);
  auto start = Clock::now();
  JfrbpfRun jfrbpf(env, recordArgs(target, workload.pid()), "startup-" + std::to_string(static_cast<int>(target)) +
                                                                 "-" + std::to_string(index));
  const ProgramProbe* program = jfrbpf.awaitProgram(300s, kPoll);
  auto loaded = Clock::now();
  bool sampled = program && jfrbpf.awaitFirstSample(300s, kPoll);
  auto first = Clock::now();
  const bool allLoaded = sampled && awaitWalkers(jfrbpf, target, 60s);
  auto late = Clock::now();
  if (allLoaded) phases.verified = verifiedByProgram(jfrbpf.pid());
  jfrbpf.finish(120s);
  if (!sampled) throw Error("jfrbpf never sampled the workload");
  if (!allLoaded) throw Error("jfrbpf never loaded its trace and off-CPU walkers");
  phases.loaded.push_back(std::chrono::duration<double>(loaded - start).count());
  phases.first.push_back(std::chrono::duration<double>(first - start).count());
  if (target == Target::kJvmAllWalkers) phases.late.push_back(std::chrono::duration<double>(late - start).count());
}

std::string describeTarget(Target target) {
  switch (target) {
    case Target::kJvm: return "a JVM (JDK 17, agent attached on the fly)";
    case Target::kNative: return "a C program";
    case Target::kJvmAllWalkers: return "a JVM with --off-cpu and --method-trace";
  }
  return {};
}

}  // namespace

void benchStartup(const BenchEnv& env, Report& report) {
  BpfStatsSwitch stats;
  // jfrbpf's start-up is mostly CPU work (the kernel's BTF, map creation, the verifier, the agent's replay,
  // unwind tables): measured with a CPU to spare, as on a quiet host, and with the target busy on every CPU.
  const int cpus = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  for (const auto& [target, threads] : std::vector<std::pair<Target, int>>{{Target::kJvm, std::max(1, cpus - 1)},
                                                                            {Target::kNative, std::max(1, cpus - 1)},
                                                                            {Target::kJvmAllWalkers, std::max(1, cpus - 1)},
                                                                            {Target::kJvm, cpus},
                                                                            {Target::kJvmAllWalkers, cpus}}) {
    const std::string what = describeTarget(target) + ", " + std::to_string(threads) + " busy thread" +
                             (threads == 1 ? "" : "s") + " on " + std::to_string(cpus) + " CPUs";
    Phases phases;
    try {
      for (int i = 0; i < env.repeats; ++i) {
        progress("start-up, " + what + ": run " + std::to_string(i + 1) + "/" + std::to_string(env.repeats));
        phases.loads.push_back(loadAverage());
        measureOnce(env, target, threads, i, phases);
      }
    } catch (const Error& e) {
      report.failed("Start-up to first sample, " + what, e.what());
      continue;
    }
    std::vector<double> rest;
    for (size_t i = 0; i < phases.first.size(); ++i) rest.push_back(phases.first[i] - phases.loaded[i]);
    std::string result = describe(distributionOf(phases.first), 2, "s") + "; of which BPF load + verify " +
                         describe(distributionOf(phases.loaded), 2, "s") + " (the agent attaching meanwhile), then " +
                         "the rest of the attach, tables, perf events " + describe(distributionOf(rest), 2, "s");
    if (!phases.late.empty()) {
      result += "; trace probe and off-CPU flush pass loaded in the background by " +
                describe(distributionOf(phases.late), 2, "s");
    }
    report.add("Start-up to first sample, " + what, result, describeLoad(phases.loads),
               "wall time from spawning `jfrbpf record -p PID` to on_cpu_clock's run_cnt > 0 (1 ms polling of "
               "its fds and bpf_stats); \"load + verify\" ends when on_cpu_clock's fd appears (with the programs "
               "sampling needs; the others load after it, on a thread of their own). Instructions the verifier "
               "processed: " + phases.verified);
  }
}

}  // namespace jfrbpf::bench
