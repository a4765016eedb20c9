#pragma once
// The whole-program measurements (DESIGN.md performance targets), one function each. Each adds its figures
// to the report; a measurement that cannot run adds a figure saying why instead of stopping the others.
#include "bench/sampler/bench_env.h"
#include "bench/sampler/report.h"

namespace jfrbpf::bench {

// 1. BPF run time per sample (bpf_stats) for 64-frame (compiled and interpreted) and 256-frame Java stacks
//    and a 20-frame native stack,
//    beside the kernel's frame-pointer walk for the same stacks.
void benchBpfCost(const BenchEnv& env, Report& report);
// 2. jfrbpf's own CPU time at 2,000 samples/s.
void benchLoaderCpu(const BenchEnv& env, Report& report);
// 3. 2 CPUs x 10 kHz for 10 s: samples/s, losses and their causes.
void benchMaxRate(const BenchEnv& env, Report& report);
// 4. A CPU-bound Java benchmark's throughput unprofiled and profiled (jfrbpf, JDK 17 JFR, JDK 25 JFR).
void benchSlowdown(const BenchEnv& env, Report& report);
// 4b. An allocating Java benchmark's throughput unprofiled and with allocation samples (jfrbpf --alloc, JDK 17
//     JFR's jdk.ObjectAllocationSample).
void benchAllocationSlowdown(const BenchEnv& env, Report& report);
// 4c. A Java benchmark contending for one monitor, unprofiled and with monitor events (jfrbpf --lock, JDK 17
//     JFR's jdk.JavaMonitorEnter and jdk.JavaMonitorWait).
void benchLockSlowdown(const BenchEnv& env, Report& report);
// 5. jfrbpf's peak RSS over a long 1 kHz recording; BPF map memory; unwind table sizes.
void benchMemory(const BenchEnv& env, Report& report);
// 6. From `jfrbpf record -p` to the first sample, for a JVM and a C program.
void benchStartup(const BenchEnv& env, Report& report);
// 7. CPU per sample at 1 kHz and 10 kHz per thread, split into the sampled threads' side, BPF and the loader,
//    beside the floor (the same perf events with an empty BPF program).
void benchSampleCost(const BenchEnv& env, Report& report);
// 8. BPF time per sample of the OpenTelemetry thread context read: none published, a null variable, a record.
void benchContextCost(const BenchEnv& env, Report& report);
// Google Benchmark executables (hot paths of the loader and the JFR writer).
void benchMicro(const BenchEnv& env, Report& report);
// bench/timing's method-timing benchmark, whose own table becomes a section of the report.
void benchTiming(const BenchEnv& env, Report& report);

}  // namespace jfrbpf::bench
