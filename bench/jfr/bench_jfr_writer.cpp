// Throughput and size of the JFR writer's hot path: jdk.CPUTimeSample events with 64-frame mixed stacks
// (kernel, native, Java) drawn from a realistic pool — a few thousand distinct stacks with a skewed
// (Zipf) popularity, plus a small fraction of brand-new stacks — written to real files with 12 MiB chunks.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "formats/jfr/writer/recording.h"

namespace jfrbpf::jfr {
namespace {

constexpr int kDepth = 64;
constexpr int kDistinctStacks = 3000;
constexpr int kThreads = 16;
constexpr size_t kDrawSequence = 1 << 20;

struct Workload {
  std::vector<std::vector<StackFrame>> stacks;
  std::vector<uint32_t> draws;  // stack index per event, Zipf-distributed
  std::vector<ThreadId> threads;
};

// Stacks grow from a few thread entry paths through a shared middle layer of application methods to a leaf
// region that is Java (70 %), native library (20 %) or kernel-over-native (10 %) code.
Workload makeWorkload(Recording& r) {
  std::mt19937 random(12345);
  auto pick = [&](const std::vector<MethodId>& from) { return from[random() % from.size()]; };
  std::vector<MethodId> java, native, kernel;
  for (int c = 0; c < 300; ++c) {
    ClassId cls = r.internClass("com/example/app/module" + std::to_string(c % 17) + "/Service" + std::to_string(c), 1);
    for (int m = 0; m < 10; ++m)
      java.push_back(r.internMethod(cls, "handle" + std::to_string(m), "(Ljava/lang/Object;I)Ljava/lang/Object;", 1));
  }
  const char* libraries[] = {"libc.so.6", "libz.so.1", "libjvm.so", "libnet.so", "libssl.so.3"};
  for (int s = 0; s < 200; ++s)
    native.push_back(
        r.internMethod(r.internClass(libraries[s % 5]), "native_fn_" + std::to_string(s), kNativeMethodDescriptor));
  ClassId kernelClass = r.internClass("kernel");
  for (int s = 0; s < 50; ++s)
    kernel.push_back(r.internMethod(kernelClass, "kfunc_" + std::to_string(s), kNativeMethodDescriptor));

  std::vector<std::vector<StackFrame>> entryPaths(8);
  for (auto& path : entryPaths)
    for (int d = 0; d < 16; ++d)
      path.push_back({pick(java), static_cast<int32_t>(random() % 400), static_cast<int32_t>(random() % 200),
                      FrameType::Interpreted});

  Workload w;
  for (int s = 0; s < kDistinctStacks; ++s) {
    std::vector<StackFrame> rootFirst = entryPaths[random() % entryPaths.size()];
    while (rootFirst.size() < kDepth - 8)
      rootFirst.push_back({pick(java), static_cast<int32_t>(random() % 2000), static_cast<int32_t>(random() % 300),
                           random() % 3 == 0 ? FrameType::Inlined : FrameType::JitCompiled});
    unsigned kind = random() % 10;
    for (int d = 0; d < 8; ++d) {
      bool nativeLeaf = kind >= 7 && d >= 4, kernelLeaf = kind == 9 && d >= 6;
      MethodId m = kernelLeaf ? pick(kernel) : nativeLeaf ? pick(native) : pick(java);
      bool isJava = !nativeLeaf && !kernelLeaf;
      rootFirst.push_back({m, isJava ? static_cast<int32_t>(random() % 2000) : -1,
                           isJava ? static_cast<int32_t>(random() % 300) : -1,
                           isJava ? FrameType::JitCompiled : FrameType::Native});
    }
    w.stacks.emplace_back(rootFirst.rbegin(), rootFirst.rend());  // leaf first
  }

  std::vector<double> cumulative;
  double total = 0;
  for (int rank = 0; rank < kDistinctStacks; ++rank) cumulative.push_back(total += 1.0 / (rank + 1));
  std::uniform_real_distribution<double> uniform(0, total);
  for (size_t i = 0; i < kDrawSequence; ++i)
    w.draws.push_back(static_cast<uint32_t>(std::lower_bound(cumulative.begin(), cumulative.end(), uniform(random)) -
                                            cumulative.begin()));
  for (int t = 0; t < kThreads; ++t)
    w.threads.push_back(
        r.internThread({"worker-" + std::to_string(t), 10000 + t, "worker-" + std::to_string(t), 20 + t}));
  return w;
}

// Argument: brand-new stacks per 1000 events (a new stack is a pooled one whose leaf has a never-seen line).
void BM_CpuTimeSample(benchmark::State& state) {
  const auto newPerMille = static_cast<uint64_t>(state.range(0));
  char dir[] = "/tmp/jfrbpf-bench-writer.XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  std::string path = std::string(dir) + "/bench.jfr";
  uint64_t events = 0;
  Recording::Stats stats{};
  {
    Recording r({.path = path});
    Workload w = makeWorkload(r);
    std::vector<StackFrame> fresh(kDepth);
    int32_t freshLine = 100000;
    Ticks t = Recording::now();
    for (auto _ : state) {
      const auto& pooled = w.stacks[w.draws[events % kDrawSequence]];
      std::span<const StackFrame> frames = pooled;
      if (newPerMille != 0 && events % 1000 < newPerMille) {
        std::copy(pooled.begin(), pooled.end(), fresh.begin());
        fresh[0].lineNumber = freshLine++;
        frames = fresh;
      }
      r.cpuTimeSample(t, frames, false, w.threads[events % kThreads], false, 10'000'000, false);
      t += 100'000;
      ++events;
    }
    r.close();
    stats = r.stats();
  }
  std::filesystem::remove_all(dir);
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["bytes/event"] = static_cast<double>(stats.bytesWritten) / static_cast<double>(events);
  state.counters["chunks"] = static_cast<double>(stats.chunks);
  state.counters["stacks/chunk"] = static_cast<double>(stats.stackTraces) / static_cast<double>(stats.chunks);
}
BENCHMARK(BM_CpuTimeSample)->Arg(0)->Arg(5)->Arg(10)->MinTime(2.0)->Unit(benchmark::kNanosecond);

}  // namespace
}  // namespace jfrbpf::jfr

BENCHMARK_MAIN();
