#include "bench/sampler/workloads.h"

#include <sstream>
#include <thread>

#include "base/error.h"
#include "bench/sampler/proc_probe.h"

namespace jfrbpf::bench {
namespace {

using namespace std::chrono_literals;

// Frames of a deep-workload sample besides descend()'s: leafWork, the worker lambda, Thread.run, and nine
// JVM frames from call_stub down to clone3 (JDK 17, measured on this workload).
constexpr int kJavaFramesOutsideRecursion = 12;

std::vector<std::string> javaCommand(const BenchEnv& env, const Jdk& jdk, const std::vector<std::string>& options) {
  std::vector<std::string> command = {jdk.java(), "-Xms64m", "-Xmx256m", "-XX:CompileCommand=quiet"};
  command.insert(command.end(), options.begin(), options.end());
  command.insert(command.end(), {"-cp", env.javaClasses, "SamplerWorkload"});
  return command;
}

void requireLine(ChildProcess& child, std::string_view prefix, std::chrono::milliseconds timeout,
                 const std::string& log) {
  if (!child.awaitLine(prefix, timeout)) {
    throw Error("the workload did not print \"" + std::string(prefix) + "\" (see " + log + ")");
  }
}

}  // namespace

ChildProcess startJavaDeep(const BenchEnv& env, const Jdk& jdk, int frames, int threads, bool preserveFramePointer,
                           JavaDeepShape shape) {
  std::vector<std::string> options = {"-XX:CompileCommand=dontinline,SamplerWorkload::descend",
                                      "-XX:CompileCommand=dontinline,SamplerWorkload$Hop::apply",
                                      "-XX:CompileCommand=dontinline,SamplerWorkload::leafWork"};
  if (preserveFramePointer) options.push_back("-XX:+PreserveFramePointer");
  if (shape == JavaDeepShape::InterpretedRecursion) options.push_back("-Xint");
  std::vector<std::string> command = javaCommand(env, jdk, options);
  // descend(d) and the distinct chain's apply(d) are d + 1 frames deep.
  command.insert(command.end(), {shape == JavaDeepShape::DistinctMethods ? "distinct" : "deep",
                                 std::to_string(frames - kJavaFramesOutsideRecursion - 1), std::to_string(threads)});
  std::string log = env.scratch("java-deep.log");
  ChildProcess child(command, {.keepStderr = true, .stderrPath = log});
  requireLine(child, "warm", 180s, log);  // after "ready", once the JIT has settled
  return child;
}

ChildProcess startJavaThroughput(const BenchEnv& env, const Jdk& jdk, int threads, int warmupSeconds,
                                 const std::vector<std::string>& jvmOptions, const std::string& logName,
                                 ThroughputMix mix) {
  std::vector<std::string> command = javaCommand(env, jdk, jvmOptions);
  command.insert(command.end(), {"throughput", std::to_string(threads), std::to_string(warmupSeconds)});
  if (mix == ThroughputMix::JavaAndZlib) command.push_back("zlib");
  if (mix == ThroughputMix::Allocating) command.push_back("alloc");
  if (mix == ThroughputMix::Locking) command.push_back("lock");
  std::string log = env.scratch(logName);
  ChildProcess child(command, {.keepStderr = true, .stderrPath = log, .writableStdin = true});
  requireLine(child, "warm", std::chrono::seconds(180 + warmupSeconds), log);
  return child;
}

ChildProcess startNativeChain(const BenchEnv& env, int frames, int threads, bool framePointers) {
  std::string log = env.scratch("native-chain.log");
  ChildProcess child(
      {framePointers ? env.nativeChainFp : env.nativeChain, std::to_string(frames), std::to_string(threads)},
      {.keepStderr = true, .stderrPath = log});
  requireLine(child, "ready", 30s, log);
  std::this_thread::sleep_for(1s);
  return child;
}

std::vector<ThreadThroughput> readThroughput(ChildProcess& workload, std::chrono::milliseconds timeout) {
  std::vector<ThreadThroughput> rates;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    std::optional<std::string> line = workload.readLine(std::max(left, std::chrono::milliseconds(1)));
    if (!line || *line == "done") break;
    if (!line->starts_with("ops ")) continue;
    std::istringstream fields(line->substr(4));
    int thread = 0;
    ThreadThroughput rate;
    if (fields >> thread >> rate.opsPerSecond >> rate.opsPerCpuSecond >> rate.ops >> rate.cpuNs) rates.push_back(rate);
  }
  return rates;
}

double measureCpuShare(pid_t pid, std::chrono::milliseconds window) {
  auto start = std::chrono::steady_clock::now();
  std::optional<uint64_t> before = processCpuNs(pid);
  std::this_thread::sleep_for(window);
  std::optional<uint64_t> after = processCpuNs(pid);
  double elapsedNs = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  if (!before || !after || elapsedNs <= 0) return 0;
  return static_cast<double>(*after - *before) / elapsedNs;
}

}  // namespace jfrbpf::bench
