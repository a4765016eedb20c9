// libFuzzer target: /proc/PID/maps, whose paths a target chooses.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "userspace/proc/maps.h"

using namespace jfrbpf::proc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const Mapping& mapping : parseMaps(text)) {
    (void)baseName(mapping.path);
    if (mapping.start >= mapping.end || !mapping.contains(mapping.start)) __builtin_trap();
    // Only files and memfds can be deleted.
    if (mapping.deleted && mapping.kind != MappingKind::kFile && mapping.kind != MappingKind::kMemfd) __builtin_trap();
  }
  return 0;
}
