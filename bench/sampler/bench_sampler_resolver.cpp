// The loader's per-sample hot path without the kernel: sample records as the BPF sampler writes them,
// with 64 native user frames (real pcs of this process's executable and libraries) and, in a quarter of
// the samples, 8 kernel frames (real pcs from /proc/kallsyms), resolved to JFR frames by StackResolver and
// written as jdk.CPUTimeSample events.
//   BM_ResolveCached    steady state: every pc already seen (the per-process pc cache answers)
//   BM_ResolveAndWrite  the same plus the JFR writer: what the consumer thread does per sample
//   BM_ResolveCold      a new symbolizer per iteration: the first sample of a process (ELF files parsed)
#include <benchmark/benchmark.h>
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bpf/sampler_abi.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/record/output/stack_resolver.h"
#include "userspace/symbolize/kernel_symbolizer.h"
#include "userspace/symbolize/process_symbolizer.h"

namespace jfrbpf::bench {
namespace {

constexpr uint32_t kUserFrames = 64;
constexpr uint32_t kKernelFrames = 8;
constexpr size_t kDistinctSamples = 512;
constexpr size_t kPcsPerObject = 64;

struct TextRange {
  uint64_t start;
  uint64_t size;
};

int collectText(dl_phdr_info* info, size_t, void* out) {
  auto* ranges = static_cast<std::vector<TextRange>*>(out);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_memsz > 4096) {
      ranges->push_back({info->dlpi_addr + ph.p_vaddr, ph.p_memsz});
    }
  }
  return 0;
}

// Return addresses spread over the text of every object this process has loaded.
std::vector<uint64_t> userPcPool() {
  std::vector<TextRange> ranges;
  dl_iterate_phdr(collectText, &ranges);
  std::vector<uint64_t> pcs;
  for (const TextRange& r : ranges) {
    for (size_t i = 0; i < kPcsPerObject; ++i) pcs.push_back(r.start + (r.size * (2 * i + 1)) / (2 * kPcsPerObject));
  }
  return pcs;
}

// Kernel text addresses (empty when kallsyms hides them).
std::vector<uint64_t> kernelPcPool() {
  std::ifstream in("/proc/kallsyms");
  std::vector<uint64_t> pcs;
  std::string line;
  size_t seen = 0;
  while (std::getline(in, line) && pcs.size() < 256) {
    std::istringstream fields(line);
    std::string address, type;
    fields >> address >> type;
    if (type != "T" && type != "t") continue;
    uint64_t value = std::strtoull(address.c_str(), nullptr, 16);
    if (value == 0) return {};
    if (++seen % 97 == 0) pcs.push_back(value + 16);
  }
  return pcs;
}

struct Records {
  std::vector<std::vector<uint8_t>> bytes;  // each a jfrbpf_sample_record, as long as its stacks
  const jfrbpf_sample_record& at(size_t i) const {
    return *reinterpret_cast<const jfrbpf_sample_record*>(bytes[i % bytes.size()].data());
  }
};

// Stacks share their outer frames (a few thread roots) and differ towards the leaf, as real ones do.
Records makeRecords() {
  std::vector<uint64_t> user = userPcPool();
  std::vector<uint64_t> kernel = kernelPcPool();
  std::mt19937_64 random(42);
  Records records;
  for (size_t s = 0; s < kDistinctSamples; ++s) {
    bool inKernel = !kernel.empty() && s % 4 == 0;
    uint32_t kdepth = inKernel ? kKernelFrames : 0;
    size_t words = 2 * kUserFrames + kdepth;
    std::vector<uint8_t> bytes(JFRBPF_SAMPLE_HEADER_SIZE + words * sizeof(uint64_t));
    auto* rec = reinterpret_cast<jfrbpf_sample_record*>(bytes.data());
    rec->time_ns = 1'000'000 * (s + 1);
    rec->tgid = static_cast<uint32_t>(getpid());
    rec->tid = rec->tgid + static_cast<uint32_t>(s % 8);
    rec->user_depth = kUserFrames;
    rec->kernel_depth = static_cast<uint16_t>(kdepth);
    rec->flags = inKernel ? JFRBPF_SAMPLE_IN_KERNEL : 0;
    for (uint32_t f = 0; f < kUserFrames; ++f) {
      // Outer half: one of 4 roots; inner half: random.
      size_t pick = f >= kUserFrames / 2 ? (s % 4) * kUserFrames + f : random();
      rec->data[2 * f] = user[pick % user.size()];
      rec->data[2 * f + 1] = 0;
    }
    for (uint32_t k = 0; k < kdepth; ++k) rec->data[2 * kUserFrames + k] = kernel[random() % kernel.size()];
    records.bytes.push_back(std::move(bytes));
  }
  return records;
}

const Records& records() {
  static const Records all = makeRecords();
  return all;
}

// A recording in a private directory, deleted with it.
class ScratchRecording {
 public:
  ScratchRecording() {
    char dir[] = "/tmp/jfrbpf-bench-resolver-XXXXXX";
    if (!mkdtemp(dir)) throw std::runtime_error("mkdtemp failed");
    dir_ = dir;
    jfr::RecordingOptions options;
    options.path = dir_ + "/bench.jfr";
    recording_ = std::make_unique<jfr::Recording>(options);
    thread_ = recording_->internThread({"bench", getpid(), "", 0, false});
  }
  ~ScratchRecording() {
    recording_->abandon();
    recording_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  jfr::Recording& get() { return *recording_; }
  jfr::ThreadId thread() const { return thread_; }

 private:
  std::string dir_;
  std::unique_ptr<jfr::Recording> recording_;
  jfr::ThreadId thread_{};
};

double framesPerSample() {
  double frames = 0;
  for (size_t i = 0; i < kDistinctSamples; ++i) frames += records().at(i).user_depth + records().at(i).kernel_depth;
  return frames / kDistinctSamples;
}

void reportPerSample(benchmark::State& state) {
  state.SetItemsProcessed(state.iterations());
  state.counters["frames/sample"] = framesPerSample();
}

// Kernel symbols need root (kallsyms shows zero addresses otherwise).
std::unique_ptr<symbolize::KernelSymbols> kernelSymbols(benchmark::State& state) {
  try {
    return std::make_unique<symbolize::KernelSymbols>(symbolize::KernelSymbolizer::shared());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
}

void BM_ResolveCached(benchmark::State& state) {
  auto kernel = kernelSymbols(state);
  if (!kernel) return;
  symbolize::ProcessSymbolizer native;
  ScratchRecording out;
  record::StackResolver resolver(out.get(), *kernel, native);
  for (size_t i = 0; i < kDistinctSamples; ++i) resolver.resolve(records().at(i));
  size_t i = 0;
  for (auto _ : state) {
    record::ResolvedStack stack = resolver.resolve(records().at(i++));
    benchmark::DoNotOptimize(stack.frames.data());
  }
  reportPerSample(state);
}
BENCHMARK(BM_ResolveCached);

void BM_ResolveAndWrite(benchmark::State& state) {
  auto kernel = kernelSymbols(state);
  if (!kernel) return;
  symbolize::ProcessSymbolizer native;
  ScratchRecording out;
  record::StackResolver resolver(out.get(), *kernel, native);
  for (size_t i = 0; i < kDistinctSamples; ++i) resolver.resolve(records().at(i));
  size_t i = 0;
  for (auto _ : state) {
    const jfrbpf_sample_record& rec = records().at(i++);
    record::ResolvedStack stack = resolver.resolve(rec);
    out.get().cpuTimeSample(static_cast<jfr::Ticks>(rec.time_ns), stack.frames, false, out.thread(), false, 1'000'000,
                            false);
  }
  reportPerSample(state);
}
BENCHMARK(BM_ResolveAndWrite);

void BM_ResolveCold(benchmark::State& state) {
  auto kernel = kernelSymbols(state);
  if (!kernel) return;
  ScratchRecording out;
  for (auto _ : state) {
    symbolize::ProcessSymbolizer native;
    record::StackResolver resolver(out.get(), *kernel, native);
    for (size_t i = 0; i < kDistinctSamples; ++i) {
      benchmark::DoNotOptimize(resolver.resolve(records().at(i)).frames.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kDistinctSamples));
}
BENCHMARK(BM_ResolveCold)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace jfrbpf::bench

BENCHMARK_MAIN();
