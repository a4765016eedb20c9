#include "userspace/proc/schedstat.h"

#include <fcntl.h>

#include <vector>

#include "userspace/proc/files.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::proc {
namespace {

constexpr size_t kSchedstatLimit = 256;  // three 20-digit numbers and blanks

}  // namespace

std::optional<Schedstat> parseSchedstat(std::string_view text) {
  std::vector<std::string_view> fields = splitFields(text, 3);
  if (fields.size() < 3) return std::nullopt;
  auto onCpu = parseNumber<uint64_t>(fields[0]);
  auto waiting = parseNumber<uint64_t>(fields[1]);
  auto timeslices = parseNumber<uint64_t>(fields[2]);
  if (!onCpu || !waiting || !timeslices) return std::nullopt;
  return Schedstat{*onCpu, *waiting, *timeslices};
}

std::optional<Schedstat> readSchedstat(pid_t pid, pid_t tid, const std::string& procRoot) {
  FileData text = readFileAt(AT_FDCWD, taskPath(pid, tid, "schedstat", procRoot).c_str(), kSchedstatLimit);
  if (!text.ok()) return std::nullopt;
  return parseSchedstat(text.bytes);
}

}  // namespace jfrbpf::proc
