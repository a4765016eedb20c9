#pragma once
// The rows of Google Benchmark's JSON output (--benchmark_format=json): names, the standard fields and the
// user counters, as flat key/value maps.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::bench {

struct BenchmarkRow {
  std::map<std::string, std::string> text;  // string fields: name, run_type, aggregate_name, time_unit, ...
  std::map<std::string, double> numbers;    // numeric fields: real_time, cpu_time, iterations, counters, ...
};

// Throws jfrbpf::Error when `json` is not Google Benchmark output.
std::vector<BenchmarkRow> parseBenchmarkJson(std::string_view json);

// Whether `key` is one of Google Benchmark's own numeric fields (not a user counter).
bool isStandardField(const std::string& key);

}  // namespace jfrbpf::bench
