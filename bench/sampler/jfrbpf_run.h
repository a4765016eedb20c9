#pragma once
// One `jfrbpf record` run under the benchmark: started with JFRBPF_DEBUG, watched through the kernel's
// accounting of its sampler program, stopped like a user would (SIGINT or its own -d), and its summary read.
#include <chrono>
#include <csignal>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/sampler/bench_env.h"
#include "bench/sampler/bpf_probe.h"
#include "tests/support/child_process.h"

namespace jfrbpf::bench {

using test::ChildProcess;

// What jfrbpf prints when it has written the recording.
struct JfrbpfSummary {
  bool valid = false;  // the "wrote ..." line was there
  double seconds = 0;
  uint64_t samples = 0;
  uint64_t lost = 0;
  uint64_t overflows = 0;
  std::map<std::string, uint64_t> counters;  // the sampler's "[debug]" counters, by name
};

JfrbpfSummary parseJfrbpfSummary(std::string_view text);

class JfrbpfRun {
 public:
  // Starts `jfrbpf record ARGS -o <scratch>/<tag>.jfr`; with `sampleCosts`, jfrbpf also times each sample in
  // BPF (one more clock read per sample) and its summary has the counters "sample cost p50/p90/p99 ns".
  // Throws jfrbpf::Error.
  JfrbpfRun(const BenchEnv& env, const std::vector<std::string>& args, const std::string& tag,
            bool sampleCosts = false);

  pid_t pid() const { return child_.pid(); }
  const std::string& outputPath() const { return output_; }

  // Waits until the sampler program is loaded (verified); nullptr if jfrbpf exits first or on timeout.
  const ProgramProbe* awaitProgram(std::chrono::milliseconds timeout,
                                   std::chrono::milliseconds pollEvery = std::chrono::milliseconds(20));
  // Waits until the program has run once (its bpf_stats run count: a BpfStatsSwitch must be alive); false if
  // jfrbpf exits first or on timeout.
  bool awaitFirstSample(std::chrono::milliseconds timeout,
                        std::chrono::milliseconds pollEvery = std::chrono::milliseconds(20));
  const ProgramProbe& program() const { return *program_; }

  // SIGINT: finish the recording now.
  void stop() { child_.signal(SIGINT); }
  // Waits (bounded by `timeout`) for jfrbpf to exit and parses its summary; throws jfrbpf::Error with its stderr
  // when it failed or did not exit (it is killed with this object).
  JfrbpfSummary finish(std::chrono::milliseconds timeout);

 private:
  std::string output_;
  std::string stderrPath_;
  ChildProcess child_;
  std::optional<ProgramProbe> program_;
};

}  // namespace jfrbpf::bench
