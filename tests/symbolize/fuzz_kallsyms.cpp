// Fuzzes the kallsyms parser (/proc/PID/maps has its own target: tests/proc/fuzz_proc_maps.cpp).
#include <cstdint>
#include <string_view>

#include "base/error.h"
#include "userspace/symbolize/kernel_symbolizer.h"

using namespace jfrbpf::symbolize;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto kernel = KernelSymbolizer::parse(text);
    kernel->symbolize(0xffffffff81000000);
    kernel->symbolize(UINT64_MAX);
  } catch (const jfrbpf::Error&) {
  }
  return 0;
}
