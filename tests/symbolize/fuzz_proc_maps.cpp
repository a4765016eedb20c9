// Fuzzes the text parsers: /proc/PID/maps (whose paths a target chooses) and kallsyms.
#include <cstdint>
#include <string_view>

#include "userspace/base/error.h"
#include "userspace/symbolize/kernel_symbolizer.h"
#include "userspace/symbolize/proc_maps.h"

using namespace jfrbpf::symbolize;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const Mapping& mapping : parseProcMaps(text)) {
    baseName(mapping.path);
    mapping.contains(mapping.start);
  }
  try {
    auto kernel = KernelSymbolizer::parse(text);
    kernel->symbolize(0xffffffff81000000);
    kernel->symbolize(UINT64_MAX);
  } catch (const jfrbpf::Error&) {
  }
  return 0;
}
