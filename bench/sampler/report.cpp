#include "bench/sampler/report.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <sstream>

#include "bench/sampler/proc_probe.h"

namespace jfrbpf::bench {
namespace {

// A table cell may not contain '|' or a newline.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

const char* verdictText(Verdict v) {
  switch (v) {
    case Verdict::Met: return "yes";
    case Verdict::Missed: return "**no**";
    case Verdict::None: return "";
  }
  return "";
}

std::string cpuModel() {
  std::istringstream lines(readTextFile("/proc/cpuinfo"));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("model name")) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

std::string memoryTotal() {
  std::istringstream lines(readTextFile("/proc/meminfo"));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("MemTotal:")) {
      std::istringstream fields(line.substr(9));
      double kb = 0;
      fields >> kb;
      return fixed(kb / (1024 * 1024), 1) + " GiB";
    }
  }
  return "unknown";
}

}  // namespace

std::string describeLoad(const std::vector<double>& loads) {
  Distribution d = distributionOf(loads);
  if (d.count == 0) return "";
  if (d.count == 1 || d.min == d.max) return fixed(d.median, 1);
  return fixed(d.median, 1) + " (" + fixed(d.min, 1) + "–" + fixed(d.max, 1) + ")";
}

void Report::print(std::FILE* out, const BenchEnv& env, double startLoad, const std::string& command) const {
  utsname host{};
  uname(&host);
  char date[32];
  time_t now = time(nullptr);
  tm local{};
  localtime_r(&now, &local);
  strftime(date, sizeof(date), "%Y-%m-%d %H:%M", &local);

  std::fprintf(out, "### jfrbpf sampler benchmarks (%s%s)\n\n", date, env.quick ? ", --quick" : "");
  std::fprintf(out, "Machine: Linux %s, %ld CPUs (%s), %s RAM; JDK %s (%s)", host.release,
               sysconf(_SC_NPROCESSORS_ONLN), cpuModel().c_str(), memoryTotal().c_str(), env.jdk17.version.c_str(),
               env.jdk17.home.c_str());
  if (env.jdk25) std::fprintf(out, ", JDK %s (%s)", env.jdk25->version.c_str(), env.jdk25->home.c_str());
  std::fprintf(out,
               "; 1-minute load average %s at the start. Each figure: median (min–max, n = runs or windows). "
               "Load: the 1-minute load average before each run (median and range; the benchmark's own previous "
               "run still counts in it).\n\n",
               fixed(startLoad, 2).c_str());

  if (!figures_.empty()) {
    std::fprintf(out, "| Measure | Result | Target | Met | Load | How measured |\n");
    std::fprintf(out, "|---|---|---|---|---|---|\n");
  }
  for (const Figure& f : figures_) {
    std::fprintf(out, "| %s | %s | %s | %s | %s | %s |\n", cell(f.measure).c_str(), cell(f.result).c_str(),
                 cell(f.target).c_str(), verdictText(f.verdict), cell(f.load).c_str(), cell(f.how).c_str());
  }
  if (!notes_.empty()) {
    std::fprintf(out, "\nNotes:\n\n");
    for (const std::string& n : notes_) std::fprintf(out, "- %s\n", n.c_str());
  }
  for (const auto& [title, markdown] : sections_) {
    std::fprintf(out, "\n#### %s\n\n%s", title.c_str(), markdown.c_str());
    if (!markdown.empty() && markdown.back() != '\n') std::fputc('\n', out);
  }
  std::fprintf(out, "\nReproduce: `%s`\n", command.c_str());
}

}  // namespace jfrbpf::bench
