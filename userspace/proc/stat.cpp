#include "userspace/proc/stat.h"

#include <vector>

#include "userspace/proc/text_fields.h"

namespace jfrbpf::proc {

std::optional<ProcStat> parseStat(std::string_view text) {
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
  stat.userTicks = field(14);
  stat.systemTicks = field(15);
  stat.startTicks = field(22);
  stat.startCode = field(26);
  stat.argStart = field(48);
  return stat;
}

}  // namespace jfrbpf::proc
