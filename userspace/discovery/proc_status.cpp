#include "userspace/discovery/proc_status.h"

#include "userspace/discovery/text_fields.h"

namespace jfrbpf::discovery {
namespace {

std::vector<pid_t> parsePidList(std::string_view value) {
  std::vector<pid_t> pids;
  for (std::string_view field : splitFields(value, 64)) {  // pid namespaces nest at most 32 deep
    auto pid = parseNumber<pid_t>(field);
    if (!pid || *pid <= 0) return {};
    pids.push_back(*pid);
  }
  return pids;
}

}  // namespace

std::optional<ProcStatus> parseProcStatus(std::string_view text) {
  ProcStatus status;
  bool haveUid = false;
  forEachLine(text, [&](std::string_view line) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = line.substr(0, colon);
    std::string_view value = trimBlanks(line.substr(colon + 1));
    if (key == "State") {
      if (!value.empty()) status.state = value.front();
    } else if (key == "Tgid") {
      status.tgid = parseNumber<pid_t>(value).value_or(0);
    } else if (key == "Uid" || key == "Gid") {
      auto ids = splitFields(value, 2);
      if (ids.size() < 2) return;
      auto id = parseNumber<uint32_t>(ids[1]);
      if (!id) return;
      if (key == "Uid") {
        status.effectiveUid = *id;
        haveUid = true;
      } else {
        status.effectiveGid = *id;
      }
    } else if (key == "NStgid") {
      status.nsTgid = parsePidList(value);
    } else if (key == "NSpid") {
      status.nsPid = parsePidList(value);
    } else if (key == "SigCgt") {
      status.caughtSignals = parseNumber<uint64_t>(value, 16).value_or(0);
    }
  });
  if (!haveUid) return std::nullopt;
  return status;
}

std::optional<ProcStat> parseProcStat(std::string_view text) {
  // "pid (comm) state ppid ...": comm may contain spaces and ')', so it ends at the last ')'.
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  ProcStat stat;
  stat.comm = text.substr(open + 1, close - open - 1);
  // Field 3 (state) is the first after the comm; field n is at index n - 3.
  auto fields = splitFields(text.substr(close + 1), 48 - 2);
  if (fields.size() < 22 - 2) return std::nullopt;
  auto field = [&](size_t number) -> uint64_t {
    size_t index = number - 3;
    if (index >= fields.size()) return 0;
    return parseNumber<uint64_t>(fields[index]).value_or(0);
  };
  stat.state = fields[0].empty() ? '?' : fields[0].front();
  stat.flags = static_cast<unsigned>(field(9));
  stat.startTicks = field(22);
  stat.startCode = field(26);
  stat.argStart = field(48);
  return stat;
}

}  // namespace jfrbpf::discovery
