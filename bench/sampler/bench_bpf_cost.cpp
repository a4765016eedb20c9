// 1. BPF run time per sample: the median and 90th percentile of every sample's own time (jfrbpf times each one in
// BPF when asked), and the kernel's bpf_stats mean (run_time_ns / run_cnt) of jfrbpf's on_cpu_clock per
// 1-second window, beside the benchmark's frame-pointer reference sampler on the same stack built with frame
// pointers.
#include <chrono>
#include <string>
#include <vector>

#include "base/error.h"
#include "bench/sampler/bpf_probe.h"
#include "bench/sampler/distribution.h"
#include "bench/sampler/fp_sampler.h"
#include "bench/sampler/jfrbpf_run.h"
#include "bench/sampler/proc_probe.h"
#include "bench/sampler/recording_facts.h"
#include "bench/sampler/run_windows.h"
#include "bench/sampler/scenarios.h"
#include "bench/sampler/workloads.h"

namespace jfrbpf::bench {
namespace {

using namespace std::chrono_literals;

constexpr int kThreads = 2;   // one per CPU of the target machine
constexpr auto kSettle = 1s;  // after the first sample: agent replay and table uploads are done
constexpr auto kWindow = 1s;
constexpr double kTargetMicros = 2.0;

enum class StackKind { Java, JavaInterpreted, JavaDistinct, Native };

struct StackCase {
  StackKind kind;
  int frames;
  std::string label;
  std::string referenceLabel;
};

std::string caseSuffix(StackKind kind) {
  switch (kind) {
    case StackKind::JavaInterpreted: return "-xint-";
    case StackKind::JavaDistinct: return "-distinct-";
    default: return "-";
  }
}

ChildProcess startWorkload(const BenchEnv& env, const StackCase& c, bool framePointers) {
  switch (c.kind) {
    case StackKind::Java: return startJavaDeep(env, env.jdk17, c.frames, kThreads, framePointers);
    case StackKind::JavaInterpreted:
      return startJavaDeep(env, env.jdk17, c.frames, kThreads, framePointers, JavaDeepShape::InterpretedRecursion);
    case StackKind::JavaDistinct:
      return startJavaDeep(env, env.jdk17, c.frames, kThreads, framePointers, JavaDeepShape::DistinctMethods);
    case StackKind::Native: break;
  }
  return startNativeChain(env, c.frames, kThreads, framePointers);
}

struct CaseResult {
  std::vector<double> sampleP50Micros;  // per run: median of the run's per-sample times
  std::vector<double> sampleP90Micros;  // per run
  std::vector<double> jfrbpfMicros;     // bpf_stats mean, per window
  std::vector<double> referenceMicros;  // per window
  std::vector<double> frames;           // median JFR frames per sample, per run
  std::vector<double> referenceFrames;  // mean frames the kernel walked, per run
  std::vector<double> notTargetShare;   // program runs that were not the target's, per run
  std::vector<double> loads;
  uint32_t verifiedInstructions = 0;
};

void measureJfrbpf(const BenchEnv& env, const StackCase& c, int windows, int run, CaseResult& out) {
  ChildProcess workload = startWorkload(env, c, false);
  JfrbpfRun jfrbpf(env, {"-p", std::to_string(workload.pid()), "--interval", "1ms"},
                   "cost-" + std::to_string(c.frames) + caseSuffix(c.kind) +
                       std::to_string(run),
                   /*sampleCosts=*/true);
  if (!jfrbpf.awaitFirstSample(180s)) {
    jfrbpf.stop();
    jfrbpf.finish(60s);  // throws with jfrbpf's message
    throw Error("jfrbpf never sampled the workload");
  }
  sleepFor(kSettle);
  std::vector<double> ns = runTimePerRun(jfrbpf.program(), windows, kWindow);
  out.verifiedInstructions = jfrbpf.program().verifiedInstructions();
  jfrbpf.stop();
  JfrbpfSummary summary = jfrbpf.finish(120s);
  for (double v : ns) out.jfrbpfMicros.push_back(v / 1000);
  out.sampleP50Micros.push_back(static_cast<double>(summary.counters["sample cost p50 ns"]) / 1000);
  out.sampleP90Micros.push_back(static_cast<double>(summary.counters["sample cost p90 ns"]) / 1000);
  out.frames.push_back(readRecordingFacts(jfrbpf.outputPath()).medianFrames);
  double overflows = static_cast<double>(summary.counters["overflows"]);
  if (overflows > 0) out.notTargetShare.push_back(static_cast<double>(summary.counters["not target"]) / overflows);
}

void measureReference(const BenchEnv& env, const StackCase& c, int windows, CaseResult& out) {
  ChildProcess workload = startWorkload(env, c, true);
  FramePointerSampler sampler(workload.pid(), 1'000'000);
  ProgramProbe program = ProgramProbe::ofFd(sampler.programFd());
  auto serve = [&](std::chrono::milliseconds duration) {
    auto until = std::chrono::steady_clock::now() + duration;
    while (std::chrono::steady_clock::now() < until) sampler.poll(50);
  };
  serve(kSettle);
  for (double v : runTimePerRun(program, windows, kWindow, serve)) out.referenceMicros.push_back(v / 1000);
  out.referenceFrames.push_back(sampler.meanUserFrames());
}

// Per-run time of one of the benchmark's own programs on the frame-pointer native workload.
std::vector<double> measureOwnProgram(const BenchEnv& env, int windows, FramePointerSampler::Program which) {
  ChildProcess workload = startNativeChain(env, 20, kThreads, true);
  FramePointerSampler sampler(workload.pid(), 1'000'000, which);
  ProgramProbe program = ProgramProbe::ofFd(sampler.programFd());
  auto serve = [&](std::chrono::milliseconds duration) {
    auto until = std::chrono::steady_clock::now() + duration;
    while (std::chrono::steady_clock::now() < until) sampler.poll(50);
  };
  serve(kSettle);
  std::vector<double> micros;
  for (double v : runTimePerRun(program, windows, kWindow, serve)) micros.push_back(v / 1000);
  return micros;
}

// Readings that explain the others: what any program costs on these events, what one read of user memory
// costs, and what the frame-pointer sampler costs when it does not wake its consumer.
void reportCalibration(const BenchEnv& env, int windows, Report& report) {
  std::vector<double> floor, reads, noWakeup, loads;
  try {
    for (int run = 0; run < env.repeats; ++run) {
      progress("BPF cost, calibration: run " + std::to_string(run + 1) + "/" + std::to_string(env.repeats));
      loads.push_back(loadAverage());
      for (double v : measureOwnProgram(env, windows, FramePointerSampler::Program::Floor)) floor.push_back(v);
      for (double v : measureOwnProgram(env, windows, FramePointerSampler::Program::UserReads)) reads.push_back(v);
      for (double v : measureOwnProgram(env, windows, FramePointerSampler::Program::StackWalkNoWakeup)) {
        noWakeup.push_back(v);
      }
    }
  } catch (const Error& e) {
    report.failed("BPF cost calibration", e.what());
    return;
  }
  Distribution floorUs = distributionOf(floor), readsUs = distributionOf(reads);
  report.add("Floor: a perf_event program that only looks up the target", describe(floorUs, 2, "µs"),
             describeLoad(loads),
             "benchmark-only program fp_floor (bench/sampler/fp_stack.bpf.c), per-thread 1 ms task-clock "
             "events on the 20-frame native workload; bpf_stats in 1-s windows");
  report.add(
      "One bpf_probe_read_user of 8 bytes (what a walker pays several times per frame)",
      fixed(1000 * (readsUs.median - floorUs.median) / 64, 0) + " ns (64 reads: " + describe(readsUs, 2, "µs") + ")",
      describeLoad(loads),
      "benchmark-only program fp_reads: the floor plus 64 reads up the interrupted user stack; "
      "(median − floor median) / 64");
  report.add("Reference: kernel frame-pointer walk of the 20-frame native stack, BPF_RB_NO_WAKEUP",
             describe(distributionOf(noWakeup), 2, "µs"), describeLoad(loads),
             "fp_sample as in the reference rows, but its ring-buffer output never wakes the consumer "
             "(which polls every 50 ms): the difference to the reference row is the cost of the wakeup");
}

void reportCase(const StackCase& c, const CaseResult& r, Report& report) {
  Distribution p50 = distributionOf(r.sampleP50Micros);
  Figure f;
  f.measure = "BPF time per sample, " + c.label;
  f.result = "median " + describe(p50, 2, "µs") + ", p90 " + fixed(distributionOf(r.sampleP90Micros).median, 2) +
             " µs; mean " + fixed(distributionOf(r.jfrbpfMicros).median, 2) + " µs (bpf_stats); " +
             fixed(distributionOf(r.frames).median, 0) + " frames per sample";
  if (c.kind == StackKind::Java && c.frames == 64) {
    f.target = "≤ 2 µs median";
    f.verdict = p50.count == 0 ? Verdict::None : (p50.median <= kTargetMicros ? Verdict::Met : Verdict::Missed);
  }
  f.load = describeLoad(r.loads);
  f.how =
      "each sample timed in BPF from the program's entry to its last helper call (JFRBPF_DEBUG=cost: 25-ns "
      "buckets, one more clock read per sample); median and p90 of each run's samples, median over runs; mean = "
      "kernel bpf_stats run_time_ns/run_cnt of on_cpu_clock in 1-s windows; `jfrbpf record -p PID --interval "
      "1ms`, " +
      std::to_string(kThreads) + " busy threads; frames = median stack depth in the .jfr";
  report.add(f);

  Figure ref;
  ref.measure = "Reference: kernel frame-pointer walk, " + c.referenceLabel;
  ref.result = describe(distributionOf(r.referenceMicros), 2, "µs") + "; " +
               fixed(distributionOf(r.referenceFrames).median, 0) + " frames per sample";
  ref.load = f.load;
  ref.how =
      "benchmark-only BPF program (bench/sampler/fp_stack.bpf.c): bpf_get_stack(BPF_F_USER_STACK) + kernel "
      "stack + ring buffer, same per-thread 1 ms task-clock events";
  report.add(ref);

  Distribution notTarget = distributionOf(r.notTargetShare);
  if (notTarget.count && notTarget.max > 0.01) {
    report.note(c.label + ": " + fixed(100 * notTarget.median, 1) +
                " % of on_cpu_clock runs were not the target's (counter \"not target\"); they are cheap, so the "
                "per-sample figure is slightly optimistic.");
  }
}

}  // namespace

void benchBpfCost(const BenchEnv& env, Report& report) {
  const int windows = env.quick ? 5 : 10;
  const std::vector<StackCase> cases = {
      {StackKind::Java, 64, "64-frame Java stack (JDK 17, C2-compiled recursion, no PreserveFramePointer)",
       "same 64-frame Java stack with -XX:+PreserveFramePointer"},
      {StackKind::JavaDistinct, 64,
       "64-frame Java stack, its 52 recursive levels distinct compiled methods (JDK 17, no PreserveFramePointer)",
       "same 64-frame distinct-methods stack with -XX:+PreserveFramePointer"},
      {StackKind::JavaInterpreted, 64, "64-frame Java stack, interpreted (JDK 17, -Xint)",
       "same 64-frame interpreted stack with -XX:+PreserveFramePointer"},
      {StackKind::Java, 256, "256-frame Java stack (JDK 17, C2-compiled recursion, no PreserveFramePointer)",
       "same 256-frame Java stack with -XX:+PreserveFramePointer (capped at 127 frames by perf_event_max_stack)"},
      {StackKind::Native, 20, "20-frame native stack (C, -fomit-frame-pointer, executable ↔ shared library)",
       "same 20-frame native stack built with -fno-omit-frame-pointer"},
  };
  BpfStatsSwitch stats;
  reportCalibration(env, windows, report);
  for (const StackCase& c : cases) {
    CaseResult result;
    try {
      for (int run = 0; run < env.repeats; ++run) {
        progress("BPF cost, " + c.label + ": run " + std::to_string(run + 1) + "/" +
                 std::to_string(env.repeats));
        result.loads.push_back(loadAverage());
        measureJfrbpf(env, c, windows, run, result);
        measureReference(env, c, windows, result);
      }
      reportCase(c, result, report);
      if (c.kind == StackKind::Java && c.frames == 64 && result.verifiedInstructions) {
        report.note("on_cpu_clock: " + std::to_string(result.verifiedInstructions) +
                    " instructions processed by the verifier at load.");
      }
    } catch (const Error& e) {
      report.failed("BPF time per sample, " + c.label, e.what());
    }
  }
}

}  // namespace jfrbpf::bench
