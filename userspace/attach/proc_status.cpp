#include "userspace/attach/proc_status.h"

#include <charconv>
#include <vector>

#include "userspace/attach/text_fields.h"

namespace jfrbpf::attach {
namespace {

// "Uid:\t0\t1000\t1000\t1000" -> the second number.
std::optional<uint32_t> secondId(std::string_view value) {
  std::vector<std::string_view> fields = splitFields(value, 4);
  if (fields.size() < 2) return std::nullopt;
  return parseNumber<uint32_t>(fields[1]);
}

std::optional<uint64_t> parseHexMask(std::string_view value) {
  value = trimBlanks(value);
  uint64_t mask = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), mask, 16);
  if (ec != std::errc() || end != value.data() + value.size()) return std::nullopt;
  return mask;
}

}  // namespace

std::optional<ProcStatus> parseProcStatus(std::string_view text) {
  ProcStatus status;
  bool haveUid = false;
  bool haveGid = false;
  forEachLine(text, [&](std::string_view line) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    if (key == "Name") {
      status.name.assign(trimBlanks(value).substr(0, 64));
    } else if (key == "State") {
      value = trimBlanks(value);
      if (!value.empty()) status.state = value[0];
    } else if (key == "Tgid") {
      if (auto tgid = parseNumber<int32_t>(trimBlanks(value))) status.threadGroup = *tgid;
    } else if (key == "Uid") {
      if (auto uid = secondId(value)) {
        status.effectiveUid = *uid;
        haveUid = true;
      }
    } else if (key == "Gid") {
      if (auto gid = secondId(value)) {
        status.effectiveGid = *gid;
        haveGid = true;
      }
    } else if (key == "NStgid") {
      // One pid per nested pid namespace, outermost first; a process sees itself as the last one.
      std::vector<std::string_view> fields = splitFields(value, 64);
      if (!fields.empty()) {
        auto pid = parseNumber<int32_t>(fields.back());
        if (pid && *pid > 0) status.namespacePid = *pid;
      }
    } else if (key == "SigCgt") {
      if (auto mask = parseHexMask(value)) status.caughtSignals = *mask;
    }
  });
  if (!haveUid || !haveGid) return std::nullopt;
  return status;
}

}  // namespace jfrbpf::attach
