#include "userspace/proc/status.h"

#include "userspace/proc/text_fields.h"

namespace jfrbpf::proc {
namespace {

constexpr size_t kMaxNameBytes = 64;

// A list of positive ids, or none at all when any of them is not one.
std::vector<pid_t> parsePidList(std::string_view value) {
  std::vector<pid_t> pids;
  for (std::string_view field : splitFields(value, 64)) {  // pid namespaces nest at most 32 deep
    auto pid = parseNumber<pid_t>(field);
    if (!pid || *pid <= 0) return {};
    pids.push_back(*pid);
  }
  return pids;
}

// "Uid:\t0\t1000\t1000\t1000" -> the second number (real, effective, saved, file system).
std::optional<uint32_t> effectiveId(std::string_view value) {
  std::vector<std::string_view> ids = splitFields(value, 2);
  if (ids.size() < 2) return std::nullopt;
  return parseNumber<uint32_t>(ids[1]);
}

}  // namespace

ProcStatus parseStatus(std::string_view text) {
  ProcStatus status;
  forEachLine(text, [&](std::string_view line) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = line.substr(0, colon);
    std::string_view value = trimBlanks(line.substr(colon + 1));
    if (key == "Name") {
      status.name.assign(value.substr(0, kMaxNameBytes));
    } else if (key == "State") {
      if (!value.empty()) status.state = value.front();
    } else if (key == "Tgid") {
      status.tgid = parseNumber<pid_t>(value).value_or(0);
    } else if (key == "Uid") {
      if (auto uid = effectiveId(value)) status.effectiveUid = *uid;
    } else if (key == "Gid") {
      if (auto gid = effectiveId(value)) status.effectiveGid = *gid;
    } else if (key == "NStgid") {
      status.nsTgid = parsePidList(value);
    } else if (key == "NSpid") {
      status.nsPid = parsePidList(value);
    } else if (key == "SigCgt") {
      status.caughtSignals = parseNumber<uint64_t>(value, 16).value_or(0);
    }
  });
  return status;
}

}  // namespace jfrbpf::proc
