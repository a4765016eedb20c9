#include "bench/sampler/proc_probe.h"

#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <memory>
#include <sstream>

namespace jfrbpf::bench {
namespace {

std::optional<uint64_t> parseNumber(std::string_view text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

// "VmRSS:	  123456 kB" -> bytes.
std::optional<uint64_t> statusKilobytes(std::string_view status, std::string_view key) {
  size_t at = 0;
  while ((at = status.find(key, at)) != std::string_view::npos) {
    if (at == 0 || status[at - 1] == '\n') break;
    at += key.size();
  }
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = status.substr(at + key.size());
  size_t digits = rest.find_first_of("0123456789");
  if (digits == std::string_view::npos || rest.substr(0, digits).find('\n') != std::string_view::npos) {
    return std::nullopt;
  }
  std::optional<uint64_t> kb = parseNumber(rest.substr(digits));
  if (!kb) return std::nullopt;
  return *kb * 1024;
}

}  // namespace

std::string readTextFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<uint64_t> cpuTicksFromStat(std::string_view stat) {
  // Fields after the command name, which ends at the last ')': state is field 3, utime 14, stime 15.
  size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view rest = stat.substr(close + 1);
  uint64_t ticks = 0;
  int field = 2;
  size_t pos = 0;
  while (pos < rest.size() && field < 15) {
    while (pos < rest.size() && rest[pos] == ' ') ++pos;
    size_t end = rest.find(' ', pos);
    if (end == std::string_view::npos) end = rest.size();
    ++field;
    if (field == 14 || field == 15) {
      std::optional<uint64_t> value = parseNumber(rest.substr(pos, end - pos));
      if (!value) return std::nullopt;
      ticks += *value;
    }
    pos = end;
  }
  if (field < 15) return std::nullopt;
  return ticks;
}

std::optional<uint64_t> processCpuNs(pid_t pid) {
  std::string stat = readTextFile("/proc/" + std::to_string(pid) + "/stat");
  std::optional<uint64_t> ticks = cpuTicksFromStat(stat);
  if (!ticks) return std::nullopt;
  static const long ticksPerSecond = sysconf(_SC_CLK_TCK);
  return *ticks * (1'000'000'000ull / static_cast<uint64_t>(ticksPerSecond));
}

std::optional<uint64_t> processCpuClockNs(pid_t pid) {
  clockid_t clock{};
  if (pid <= 0 || clock_getcpuclockid(pid, &clock) != 0) return std::nullopt;
  timespec now{};
  if (clock_gettime(clock, &now) != 0) return std::nullopt;
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(now.tv_nsec);
}

std::optional<MemoryUse> memoryFromStatus(std::string_view status) {
  std::optional<uint64_t> rss = statusKilobytes(status, "VmRSS:");
  std::optional<uint64_t> peak = statusKilobytes(status, "VmHWM:");
  if (!rss || !peak) return std::nullopt;
  return MemoryUse{*rss, *peak};
}

std::optional<MemoryUse> memoryOf(pid_t pid) {
  return memoryFromStatus(readTextFile("/proc/" + std::to_string(pid) + "/status"));
}

RssBreakdown rssBreakdownFromSmaps(std::string_view smaps) {
  RssBreakdown out;
  uint64_t* current = &out.other;
  size_t pos = 0;
  while (pos < smaps.size()) {
    size_t end = smaps.find('\n', pos);
    if (end == std::string_view::npos) end = smaps.size();
    std::string_view line = smaps.substr(pos, end - pos);
    pos = end + 1;
    size_t firstSpace = line.find(' ');
    std::string_view first = line.substr(0, firstSpace);
    if (first.find('-') != std::string_view::npos && first.find(':') == std::string_view::npos) {
      // A mapping header: address range, perms, offset, device, inode, then the optional name.
      std::string_view rest = firstSpace == std::string_view::npos ? "" : line.substr(firstSpace);
      for (int field = 0; field < 4 && !rest.empty(); ++field) {
        size_t start = rest.find_first_not_of(' ');
        if (start == std::string_view::npos) {
          rest = {};
          break;
        }
        size_t stop = rest.find(' ', start);
        rest = stop == std::string_view::npos ? std::string_view() : rest.substr(stop);
      }
      size_t nameStart = rest.find_first_not_of(' ');
      std::string_view name = nameStart == std::string_view::npos ? "" : rest.substr(nameStart);
      if (name.starts_with("anon_inode:bpf")) {
        current = &out.bpfMaps;
      } else if (name.empty() || name == "[heap]" || name.starts_with("[stack") || name.starts_with("[anon")) {
        current = &out.anonymous;
      } else if (name.starts_with("/")) {
        current = &out.files;
      } else {
        current = &out.other;
      }
    } else if (line.starts_with("Rss:")) {
      std::string_view value = line.substr(4);
      size_t digits = value.find_first_of("0123456789");
      if (digits != std::string_view::npos) *current += parseNumber(value.substr(digits)).value_or(0) * 1024;
    }
  }
  return out;
}

RssBreakdown rssBreakdown(pid_t pid) {
  return rssBreakdownFromSmaps(readTextFile("/proc/" + std::to_string(pid) + "/smaps"));
}

std::optional<uint64_t> voluntarySwitchesFromStatus(std::string_view status) {
  const std::string_view key = "voluntary_ctxt_switches:";
  size_t at = 0;
  while ((at = status.find(key, at)) != std::string_view::npos) {
    if (at == 0 || status[at - 1] == '\n') break;  // not nonvoluntary_ctxt_switches
    at += key.size();
  }
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = status.substr(at + key.size());
  size_t digits = rest.find_first_of("0123456789");
  if (digits == std::string_view::npos) return std::nullopt;
  return parseNumber(rest.substr(digits));
}

uint64_t voluntarySwitches(pid_t pid) {
  std::string taskDir = "/proc/" + std::to_string(pid) + "/task";
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(taskDir.c_str()), closedir);
  if (!dir) return 0;
  uint64_t total = 0;
  while (dirent* entry = readdir(dir.get())) {
    if (entry->d_name[0] == '.') continue;
    total += voluntarySwitchesFromStatus(readTextFile(taskDir + "/" + entry->d_name + "/status")).value_or(0);
  }
  return total;
}

double loadAverage() {
  std::string text = readTextFile("/proc/loadavg");
  double load = 0;
  std::istringstream(text) >> load;
  return load;
}

}  // namespace jfrbpf::bench
