// Google Benchmark executables (the loader's resolver, the JFR writer): run with repetitions, their median
// rows and user counters reported, with DESIGN.md's targets where a counter has one. And the method-timing
// benchmark (bench/timing), which prints its own table.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "base/error.h"
#include "bench/sampler/distribution.h"
#include "bench/sampler/gbench_json.h"
#include "bench/sampler/proc_probe.h"
#include "bench/sampler/scenarios.h"
#include "tests/support/child_process.h"

namespace jfrbpf::bench {
namespace {

using namespace std::chrono_literals;

// 3 significant digits with k/M/G: "1.23 M".
std::string compact(double value) {
  const char* suffix = "";
  double v = value;
  if (std::fabs(v) >= 1e9) {
    v /= 1e9;
    suffix = " G";
  } else if (std::fabs(v) >= 1e6) {
    v /= 1e6;
    suffix = " M";
  } else if (std::fabs(v) >= 1e4) {
    v /= 1e3;
    suffix = " k";
  }
  int decimals = std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 10 ? 1 : 2;
  return fixed(v, decimals) + suffix;
}

struct CounterTarget {
  const char* text;
  bool atLeast;
  double bound;
};

// DESIGN.md targets that Google Benchmark counters measure.
const std::map<std::string, CounterTarget>& counterTargets() {
  static const std::map<std::string, CounterTarget> targets = {
      {"events/s", {"≥ 1 M events/s", true, 1e6}},
      {"bytes/event", {"≤ 24 bytes/event", false, 24}},
  };
  return targets;
}

void reportExecutable(const BenchEnv& env, const std::string& path, Report& report) {
  std::string name = std::filesystem::path(path).filename().string();
  int repetitions = env.quick ? 3 : 5;
  test::ChildProcess run({path, "--benchmark_format=json", "--benchmark_repetitions=" + std::to_string(repetitions),
                          "--benchmark_report_aggregates_only=true"},
                         {.keepStderr = true, .stderrPath = env.scratch(name + ".log")});
  std::string json = run.readAll(1800s);
  run.wait(10s);
  std::vector<BenchmarkRow> rows = parseBenchmarkJson(json);
  std::map<std::string, const BenchmarkRow*> cvByRun;
  for (const BenchmarkRow& row : rows) {
    if (row.text.count("aggregate_name") && row.text.at("aggregate_name") == "cv")
      cvByRun[row.text.at("run_name")] = &row;
  }
  std::string load = describeLoad({loadAverage()});
  for (const BenchmarkRow& row : rows) {
    auto aggregate = row.text.find("aggregate_name");
    if (aggregate == row.text.end() || aggregate->second != "median") continue;
    const std::string& runName = row.text.at("run_name");
    if (row.text.count("error_message")) {
      report.add(name + ": " + runName, "skipped: " + row.text.at("error_message"), "", "");
      continue;
    }
    Figure f;
    f.measure = name + ": " + runName;
    std::string unit = row.text.count("time_unit") ? row.text.at("time_unit") : "ns";
    f.result = compact(row.numbers.count("real_time") ? row.numbers.at("real_time") : 0) + " " + unit + "/iteration";
    auto cv = cvByRun.find(runName);
    if (cv != cvByRun.end() && cv->second->numbers.count("real_time")) {
      f.result += " (cv " + fixed(100 * cv->second->numbers.at("real_time"), 1) + " %)";
    }
    bool met = true, judged = false;
    for (const auto& [key, value] : row.numbers) {
      if (isStandardField(key)) continue;
      f.result += "; " + (key == "items_per_second" ? std::string("items/s") : key) + " " + compact(value);
      auto target = counterTargets().find(key);
      if (target == counterTargets().end()) continue;
      f.target += (f.target.empty() ? "" : ", ") + std::string(target->second.text);
      judged = true;
      met = met && (target->second.atLeast ? value >= target->second.bound : value <= target->second.bound);
    }
    if (judged) f.verdict = met ? Verdict::Met : Verdict::Missed;
    f.load = load;
    f.how = "Google Benchmark, median of " + std::to_string(repetitions) +
            " repetitions (cv = their coefficient of "
            "variation), one core";
    report.add(f);
  }
}

}  // namespace

void benchMicro(const BenchEnv& env, Report& report) {
  for (const std::string& path : env.googleBenchmarks) {
    progress("Google Benchmark " + path);
    try {
      reportExecutable(env, path, report);
    } catch (const Error& e) {
      report.failed(std::filesystem::path(path).filename().string(), e.what());
    }
  }
}

void benchTiming(const BenchEnv& env, Report& report) {
  if (env.timingBench.empty()) {
    report.note("Method timing skipped: bench/timing's timing_bench is not part of this build.");
    return;
  }
  progress("method timing: " + env.timingBench);
  std::vector<std::string> command = {env.timingBench};
  if (env.quick) command.push_back("--quick");
  try {
    test::ChildProcess run(command, {.keepStderr = true, .stderrPath = env.scratch("timing_bench.log")});
    std::string markdown = run.readAll(3600s);
    std::optional<int> code = run.wait(10s);
    if (code != 0) {
      std::string how = code ? "exit code " + std::to_string(*code) : "still running";
      throw Error("timing_bench failed (" + how + ", log " + env.scratch("timing_bench.log") + ")");
    }
    report.section("Method timing (bench/timing/timing_bench" + std::string(env.quick ? " --quick" : "") + ")",
                   markdown);
  } catch (const Error& e) {
    report.failed("Method timing (bench/timing)", e.what());
  }
}

}  // namespace jfrbpf::bench
