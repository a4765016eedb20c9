#include "bench/sampler/jfrbpf_run.h"

#include <signal.h>

#include <charconv>
#include <sstream>
#include <thread>

#include "base/error.h"

namespace jfrbpf::bench {
namespace {

// "3,553" -> 3553.
std::optional<uint64_t> groupedNumber(std::string_view text) {
  std::string digits;
  for (char c : text) {
    if (c == ',') continue;
    if (c < '0' || c > '9') break;
    digits += c;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc()) return std::nullopt;
  return value;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' || text.back() == '\n'))
    text.remove_suffix(1);
  return text;
}

std::vector<std::string> jfrbpfCommand(const BenchEnv& env, const std::vector<std::string>& args,
                                       const std::string& output) {
  std::vector<std::string> command = {env.jfrbpf, "record"};
  command.insert(command.end(), args.begin(), args.end());
  command.insert(command.end(), {"-o", output});
  return command;
}

// JFRBPF_DEBUG=1 makes jfrbpf print the sampler's counters with its summary; JFRBPF_DEBUG=cost also the
// quantiles of its per-sample BPF time.
test::ChildOptions debugOptions(const std::string& stderrPath, bool sampleCosts) {
  return {.extraEnv = {sampleCosts ? "JFRBPF_DEBUG=cost" : "JFRBPF_DEBUG=1"},
          .keepStderr = true,
          .stderrPath = stderrPath};
}

}  // namespace

JfrbpfSummary parseJfrbpfSummary(std::string_view text) {
  JfrbpfSummary summary;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::string_view view = trim(line);
    if (view.starts_with("jfrbpf: wrote ")) {
      size_t open = view.rfind(" (");
      if (open != std::string_view::npos) {
        std::string_view rest = view.substr(open + 2);
        std::from_chars(rest.data(), rest.data() + rest.size(), summary.seconds);
        summary.valid = true;
      }
    } else if (view.starts_with("samples ")) {
      summary.samples = groupedNumber(trim(view.substr(8))).value_or(0);
    } else if (view.starts_with("lost ")) {
      std::string_view rest = trim(view.substr(5));
      summary.lost = groupedNumber(rest).value_or(0);
      size_t of = rest.find(" of ");
      if (of != std::string_view::npos) summary.overflows = groupedNumber(rest.substr(of + 4)).value_or(0);
    } else if (view.starts_with("[debug] ")) {
      std::string_view rest = trim(view.substr(8));
      size_t lastSpace = rest.rfind(' ');
      if (lastSpace == std::string_view::npos) continue;
      std::optional<uint64_t> value = groupedNumber(rest.substr(lastSpace + 1));
      if (value) summary.counters[std::string(trim(rest.substr(0, lastSpace)))] = *value;
    }
  }
  return summary;
}

JfrbpfRun::JfrbpfRun(const BenchEnv& env, const std::vector<std::string>& args, const std::string& tag,
                     bool sampleCosts)
    : output_(env.scratch(tag + ".jfr")),
      stderrPath_(env.scratch(tag + ".jfrbpf.log")),
      child_(jfrbpfCommand(env, args, output_), debugOptions(stderrPath_, sampleCosts)) {}

const ProgramProbe* JfrbpfRun::awaitProgram(std::chrono::milliseconds timeout, std::chrono::milliseconds pollEvery) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!program_) {
    program_ = ProgramProbe::find(child_.pid(), "on_cpu_clock");
    if (program_) break;
    if (!child_.running() || std::chrono::steady_clock::now() >= deadline) return nullptr;
    std::this_thread::sleep_for(pollEvery);
  }
  return &*program_;
}

bool JfrbpfRun::awaitFirstSample(std::chrono::milliseconds timeout, std::chrono::milliseconds pollEvery) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  if (!awaitProgram(timeout, pollEvery)) return false;
  while (program_->totals().runCount == 0) {
    if (!child_.running() || std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pollEvery);
  }
  return true;
}

JfrbpfSummary JfrbpfRun::finish(std::chrono::milliseconds timeout) {
  std::string text = child_.readAll(timeout);
  std::optional<int> code = child_.wait(std::chrono::seconds(10));
  JfrbpfSummary summary = parseJfrbpfSummary(text);
  if (!summary.valid || code != 0) {
    std::string err = child_.stderrText();
    size_t lastLine = err.find_last_of('\n', err.size() > 1 ? err.size() - 2 : 0);
    std::string lastText = lastLine == std::string::npos ? err : err.substr(lastLine + 1);
    std::string tail(trim(lastText));
    std::string how = code ? "exit code " + std::to_string(*code) : "still running";
    throw Error("jfrbpf failed (" + how + "): " + (tail.empty() ? "no message" : tail) + " (log: " + stderrPath_ + ")");
  }
  return summary;
}

}  // namespace jfrbpf::bench
