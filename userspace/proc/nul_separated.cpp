#include "userspace/proc/nul_separated.h"

namespace jfrbpf::proc {

std::vector<std::string_view> splitAtNul(std::string_view block) {
  std::vector<std::string_view> parts;
  while (!block.empty()) {
    size_t nul = block.find('\0');
    parts.push_back(block.substr(0, nul));
    if (nul == std::string_view::npos) break;
    block.remove_prefix(nul + 1);
  }
  return parts;
}

std::optional<std::string_view> environmentValue(std::string_view environ, std::string_view name) {
  for (std::string_view entry : splitAtNul(environ)) {
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

}  // namespace jfrbpf::proc
