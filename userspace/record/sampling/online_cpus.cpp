#include "userspace/record/sampling/online_cpus.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

#include "base/error.h"

namespace jfrbpf::record {
namespace {

int parseCpuNumber(std::string_view token, std::string_view whole) {
  int value = -1;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || value < 0 || value > 65535) {
    throw Error("malformed CPU list '" + std::string(whole) + "'");
  }
  return value;
}

}  // namespace

std::vector<int> parseCpuList(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::vector<int> cpus;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view range = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    size_t dash = range.find('-');
    int first = parseCpuNumber(range.substr(0, dash), text);
    int last = dash == std::string_view::npos ? first : parseCpuNumber(range.substr(dash + 1), text);
    if (last < first) throw Error("malformed CPU list '" + std::string(text) + "'");
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (cpus.empty()) throw Error("empty CPU list");
  return cpus;
}

std::vector<int> onlineCpus() {
  std::ifstream in("/sys/devices/system/cpu/online");
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw Error("cannot read /sys/devices/system/cpu/online: is sysfs mounted?");
  return parseCpuList(text.str());
}

}  // namespace jfrbpf::record
