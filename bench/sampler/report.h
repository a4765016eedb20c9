#pragma once
// The benchmark's output: one Markdown table of figures (each with its target, verdict, the machine's load
// and how it was measured), notes, and the machine facts they were measured on.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "bench/sampler/bench_env.h"
#include "bench/sampler/distribution.h"

namespace jfrbpf::bench {

enum class Verdict { None, Met, Missed };

struct Figure {
  std::string measure;  // what, e.g. "BPF time per sample, 64-frame Java stack"
  std::string result;   // median and spread, with unit
  std::string target;   // from DESIGN.md, "" when the figure has none
  Verdict verdict = Verdict::None;
  std::string load;  // 1-minute load average before the runs (median and range)
  std::string how;   // the method, short enough for a table cell
};

// "7.2 (6.1–8.0)": the load averages seen before each run.
std::string describeLoad(const std::vector<double>& loads);

class Report {
 public:
  void add(Figure figure) { figures_.push_back(std::move(figure)); }
  // A figure without a target.
  void add(std::string measure, std::string result, std::string load, std::string how) {
    Figure f;
    f.measure = std::move(measure);
    f.result = std::move(result);
    f.load = std::move(load);
    f.how = std::move(how);
    add(std::move(f));
  }
  // A measurement that could not be made, and why.
  void failed(std::string measure, const std::string& why) { add(std::move(measure), "failed: " + why, "", ""); }
  // A sentence below the table (a diagnosis, a comparison that does not fit a cell).
  void note(std::string text) { notes_.push_back(std::move(text)); }
  // Another benchmark's own Markdown output, printed after the table under `title`.
  void section(std::string title, std::string markdown) {
    sections_.push_back({std::move(title), std::move(markdown)});
  }
  void print(std::FILE* out, const BenchEnv& env, double startLoad, const std::string& command) const;

 private:
  std::vector<Figure> figures_;
  std::vector<std::string> notes_;
  std::vector<std::pair<std::string, std::string>> sections_;
};

}  // namespace jfrbpf::bench
