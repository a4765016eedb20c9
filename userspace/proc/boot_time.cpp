#include "userspace/proc/boot_time.h"

#include <fcntl.h>

#include "userspace/proc/files.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::proc {
namespace {

constexpr size_t kProcStatLimit = 64 * 1024;

}  // namespace

std::optional<int64_t> parseBootTimeSeconds(std::string_view procStatText) {
  std::optional<int64_t> seconds;
  forEachLine(procStatText, [&](std::string_view line) {
    if (line.starts_with("btime ")) seconds = parseNumber<int64_t>(trimBlanks(line.substr(6)));
  });
  return seconds;
}

std::optional<int64_t> readBootTimeSeconds(const std::string& procRoot) {
  FileData text = readFileAt(AT_FDCWD, (procRoot + "/stat").c_str(), kProcStatLimit);
  if (!text.ok()) return std::nullopt;
  return parseBootTimeSeconds(text.bytes);
}

}  // namespace jfrbpf::proc
