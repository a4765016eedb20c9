#pragma once
// Starting the benchmark workloads (workloads/): each returns once the workload runs at full speed.
#include <string>
#include <vector>

#include "bench/sampler/bench_env.h"
#include "tests/support/child_process.h"

namespace jfrbpf::bench {

using test::ChildProcess;  // the benchmark starts its workloads and tools as the tests do

// How the deep Java stacks are made: compiled frames of one recursive method, the same interpreted (-Xint),
// or compiled frames of as many distinct methods.
enum class JavaDeepShape { Recursion, InterpretedRecursion, DistinctMethods };

// SamplerWorkload deep or distinct: THREADS threads whose samples have `frames` user frames (those of the
// shape, plus the thread's Java and JVM frames below them). Returns after JIT warm-up.
ChildProcess startJavaDeep(const BenchEnv& env, const Jdk& jdk, int frames, int threads, bool preserveFramePointer,
                           JavaDeepShape shape = JavaDeepShape::Recursion);

// What the throughput workload's threads do: Java units only, or every second thread compressing through the
// JDK's Deflater (JNI into libz: native frames below the Java ones), or allocating, or taking turns on one
// contended monitor (SamplerWorkload.java says how).
enum class ThroughputMix { Java, JavaAndZlib, Allocating, Locking };

// SamplerWorkload throughput: returns once the JVM printed "warm"; send "go SECONDS" to measure a window
// (as many as wanted, one after the other; the JVM exits when its stdin closes).
ChildProcess startJavaThroughput(const BenchEnv& env, const Jdk& jdk, int threads, int warmupSeconds,
                                 const std::vector<std::string>& jvmOptions, const std::string& logName,
                                 ThroughputMix mix = ThroughputMix::Java);

// native_chain: THREADS threads whose samples have `frames` user frames, alternating between the executable
// and a shared library; built without frame pointers unless `framePointers`.
ChildProcess startNativeChain(const BenchEnv& env, int frames, int threads, bool framePointers);

struct ThreadThroughput {
  double opsPerSecond = 0;     // per second of wall time
  double opsPerCpuSecond = 0;  // per second of the thread's own CPU time
  double ops = 0;              // units done in the window
  double cpuNs = 0;            // the thread's CPU time in the window
};

// The throughput workload's "ops THREAD RATE RATE_PER_CPU OPS CPU_NS" lines, one per thread, read until "done".
std::vector<ThreadThroughput> readThroughput(ChildProcess& workload, std::chrono::milliseconds timeout);

// CPUs' worth of CPU time `pid` used over `window` (e.g. 1.93 for two busy threads on a quiet machine).
double measureCpuShare(pid_t pid, std::chrono::milliseconds window);

}  // namespace jfrbpf::bench
