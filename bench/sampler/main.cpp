// jfrbpf_bench: runs the sampler and whole-program benchmarks and prints a Markdown table of the figures,
// with the machine facts they were measured on (scripts/bench builds and runs it).
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "bench/sampler/bench_env.h"
#include "bench/sampler/proc_probe.h"
#include "bench/sampler/report.h"
#include "bench/sampler/scenarios.h"

namespace {

using namespace jfrbpf::bench;

constexpr const char* kHelp = R"(Usage: jfrbpf_bench [options]    (as root)

Runs jfrbpf's performance benchmarks and prints a Markdown table (stdout); progress goes to stderr.

Options:
  --quick              CI-sized: 2 runs per figure, short windows, a 60-s memory run instead of 10 minutes
  --repeats N          runs per figure (default 5; 2 with --quick)
  --only LIST          comma-separated subset of:
                       micro,cost,loader,rate,startup,sample-cost,context-cost,slowdown,alloc-slowdown,lock-slowdown,
                       timing,memory
  --keep               keep the scratch directory (recordings, logs) and print its path
  --jfrbpf PATH        the jfrbpf binary to measure (default: the one built with this benchmark)
  --compare PATH       sample-cost also measures this jfrbpf binary, in the same rounds (e.g. the build before
                       a change, with its agent library beside it); may be given more than once
  --jdk HOME           JDK 17 for the workloads (default: the build's JFRBPF_JDK_HOME)
  --jdk25 HOME|none    JDK 25 for the side-by-side runs (default: the build's JFRBPF_JDK25_HOME)
  -h, --help           this text
)";

struct Scenario {
  const char* name;
  void (*run)(const BenchEnv&, Report&);
};

// Cheapest first; the 10-minute memory run last.
constexpr Scenario kScenarios[] = {
    {"micro", benchMicro},     {"cost", benchBpfCost},    {"loader", benchLoaderCpu},
    {"rate", benchMaxRate},    {"startup", benchStartup}, {"sample-cost", benchSampleCost},
    {"context-cost", benchContextCost},
    {"slowdown", benchSlowdown}, {"alloc-slowdown", benchAllocationSlowdown}, {"lock-slowdown", benchLockSlowdown},
    {"timing", benchTiming},     {"memory", benchMemory},
};

std::vector<std::string> splitList(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, separator)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::string value(int& i, int argc, char** argv) {
  if (i + 1 >= argc) throw jfrbpf::Error(std::string("missing value for ") + argv[i], jfrbpf::ErrorKind::Usage);
  return argv[++i];
}

int run(int argc, char** argv) {
  BenchEnv env;
  env.jfrbpf = JFRBPF_BENCH_JFRBPF;
  env.javaClasses = JFRBPF_BENCH_JAVA_CLASSES;
  env.nativeChain = JFRBPF_BENCH_NATIVE_CHAIN;
  env.nativeChainFp = JFRBPF_BENCH_NATIVE_CHAIN_FP;
  env.contextSwitcher = JFRBPF_BENCH_CONTEXT_SWITCHER;
  env.unwindTableReport = JFRBPF_BENCH_UNWIND_TABLE_REPORT;
  env.googleBenchmarks = splitList(JFRBPF_BENCH_GOOGLE_BENCHMARKS, ':');
  env.timingBench = JFRBPF_BENCH_TIMING_BENCH;
  std::string jdkHome = JFRBPF_BENCH_JDK_HOME;
  std::string jdk25Home = JFRBPF_BENCH_JDK25_HOME;
  std::set<std::string> only;
  int repeats = 0;
  bool keep = false;
  std::string command = "sudo scripts/bench";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kHelp, stdout);
      return 0;
    } else if (arg == "--quick") {
      env.quick = true;
    } else if (arg == "--repeats") {
      repeats = std::atoi(value(i, argc, argv).c_str());
      if (repeats < 1 || repeats > 100) throw jfrbpf::Error("--repeats must be 1..100", jfrbpf::ErrorKind::Usage);
    } else if (arg == "--only") {
      for (const std::string& name : splitList(value(i, argc, argv), ',')) only.insert(name);
    } else if (arg == "--keep") {
      keep = true;
    } else if (arg == "--jfrbpf") {
      env.jfrbpf = value(i, argc, argv);
    } else if (arg == "--compare") {
      env.compareJfrbpf.push_back(value(i, argc, argv));
    } else if (arg == "--jdk") {
      jdkHome = value(i, argc, argv);
    } else if (arg == "--jdk25") {
      jdk25Home = value(i, argc, argv);
    } else {
      throw jfrbpf::Error("unknown option '" + arg + "' (see --help)", jfrbpf::ErrorKind::Usage);
    }
  }
  for (const std::string& name : only) {
    bool known = false;
    for (const Scenario& s : kScenarios) known = known || name == s.name;
    if (!known)
      throw jfrbpf::Error("unknown benchmark '" + name + "' in --only (see --help)", jfrbpf::ErrorKind::Usage);
  }
  env.repeats = repeats ? repeats : (env.quick ? 2 : 5);
  if (geteuid() != 0) {
    throw jfrbpf::Error(
        "the benchmarks load BPF programs and profile other processes: run as root (sudo scripts/bench)",
        jfrbpf::ErrorKind::Environment);
  }
  std::optional<Jdk> jdk = findJdk(jdkHome);
  if (!jdk) throw jfrbpf::Error("no JDK at '" + jdkHome + "' (give --jdk HOME)", jfrbpf::ErrorKind::Environment);
  env.jdk17 = *jdk;
  if (jdk25Home != "none") env.jdk25 = findJdk(jdk25Home);
  if (!env.jdk25) progress("no JDK 25: its side-by-side runs are skipped");
  if (access(env.jfrbpf.c_str(), X_OK) != 0) {
    throw jfrbpf::Error("no jfrbpf binary at " + env.jfrbpf + " (build it, or give --jfrbpf PATH)",
                        jfrbpf::ErrorKind::Environment);
  }
  for (const std::string& other : env.compareJfrbpf) {
    if (access(other.c_str(), X_OK) != 0) {
      throw jfrbpf::Error("no jfrbpf binary at " + other + " (--compare)", jfrbpf::ErrorKind::Environment);
    }
  }

  char dir[] = "/tmp/jfrbpf-bench-XXXXXX";
  if (!mkdtemp(dir)) throw jfrbpf::systemError("mkdtemp");
  env.workDir = dir;

  Report report;
  double startLoad = loadAverage();
  for (const Scenario& s : kScenarios) {
    if (!only.empty() && !only.count(s.name)) continue;
    try {
      s.run(env, report);
    } catch (const jfrbpf::Error& e) {
      report.failed(s.name, e.what());
    }
  }
  report.print(stdout, env, startLoad, command);
  if (keep) {
    progress("recordings and logs kept in " + env.workDir);
  } else {
    std::error_code ec;
    std::filesystem::remove_all(env.workDir, ec);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const jfrbpf::Error& e) {
    std::fprintf(stderr, "jfrbpf_bench: %s\n", e.what());
    return e.kind() == jfrbpf::ErrorKind::Usage ? 2 : 1;
  }
}
