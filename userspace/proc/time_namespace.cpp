#include "userspace/proc/time_namespace.h"

#include <fcntl.h>

#include <vector>

#include "userspace/proc/files.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::proc {
namespace {

constexpr size_t kTimensOffsetsLimit = 4096;
constexpr int kMaxLines = 16;  // the kernel writes two: monotonic and boottime
constexpr int64_t kMaxOffsetSeconds = int64_t{1} << 33;

}  // namespace

std::optional<int64_t> parseMonotonicOffsetNs(std::string_view timensOffsetsText) {
  std::optional<int64_t> offset;
  int lines = 0;
  forEachLine(timensOffsetsText, [&](std::string_view line) {
    if (offset || ++lines > kMaxLines) return;
    std::vector<std::string_view> fields = splitFields(line, 3);
    if (fields.size() < 3 || (fields[0] != "monotonic" && fields[0] != "1")) return;
    auto seconds = parseNumber<int64_t>(fields[1]);
    auto nanos = parseNumber<int64_t>(fields[2]);
    if (!seconds || !nanos || *seconds <= -kMaxOffsetSeconds || *seconds >= kMaxOffsetSeconds || *nanos < 0 ||
        *nanos >= 1000000000) {
      return;
    }
    offset = *seconds * 1000000000 + *nanos;
  });
  return offset;
}

int64_t monotonicOffsetNs(pid_t pid, const std::string& procRoot) {
  FileData text = readFileAt(AT_FDCWD, procPath(pid, "timens_offsets", procRoot).c_str(), kTimensOffsetsLimit);
  if (!text.ok()) return 0;
  return parseMonotonicOffsetNs(text.bytes).value_or(0);
}

}  // namespace jfrbpf::proc
