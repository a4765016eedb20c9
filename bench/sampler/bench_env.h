#pragma once
// Everything a benchmark needs to know about where it runs: tool and workload paths (baked in at build
// time, overridable on the command line), the JDKs, its private scratch directory, and how long to run.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace jfrbpf::bench {

struct Jdk {
  std::string home;
  std::string version;  // JAVA_VERSION of its release file, e.g. "17.0.15"
  std::string java() const { return home + "/bin/java"; }
};

// The JDK at `home`, or nullopt when there is none (no bin/java).
std::optional<Jdk> findJdk(const std::string& home);

struct BenchEnv {
  std::string jfrbpf;                         // the jfrbpf binary under test
  std::vector<std::string> compareJfrbpf;     // other builds measured beside it (sample-cost), e.g. before a change
  std::string javaClasses;                    // directory holding SamplerWorkload.class
  std::string nativeChain;                    // native workload without frame pointers
  std::string nativeChainFp;                  // the same with frame pointers, for the reference sampler
  std::string contextSwitcher;                // tests/otel's threads that switch OpenTelemetry contexts
  std::string unwindTableReport;              // tests/unwind's tool; "" when not built
  std::vector<std::string> googleBenchmarks;  // Google Benchmark executables to run and report
  std::string timingBench;  // bench/timing's method-timing benchmark (prints its own table); "" when not built
  Jdk jdk17;
  std::optional<Jdk> jdk25;
  std::string workDir;  // private (mkdtemp), removed at the end unless kept

  bool quick = false;  // CI-sized runs: fewer repetitions, shorter windows
  int repeats = 5;     // runs per figure (each one a fresh workload and a fresh jfrbpf)

  // Scaled by `quick`.
  std::chrono::seconds seconds(int full, int quickSeconds) const {
    return std::chrono::seconds(quick ? quickSeconds : full);
  }
  std::string scratch(const std::string& name) const { return workDir + "/" + name; }
};

// Progress on stderr (the report goes to stdout).
void progress(const std::string& message);

}  // namespace jfrbpf::bench
