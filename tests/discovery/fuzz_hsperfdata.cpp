// libFuzzer target: the hsperfdata parser on arbitrary bytes (the file belongs to the JVM's user, or to
// whoever planted it under that name).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "userspace/discovery/hsperfdata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jfrbpf::discovery;
  std::string why;
  auto parsed = parsePerfData(std::span(data, size), &why);
  if (!parsed) return 0;
  // Every name and value is a slice of the input.
  for (const auto& [name, value] : parsed->strings) {
    if (name.size() > size || value.size() > size) __builtin_trap();
  }
  for (const auto& [name, value] : parsed->longs) {
    if (name.size() > size) __builtin_trap();
  }
  (void)parsed->string(perf_counter::kJavaCommand);
  (void)parsed->number(perf_counter::kCreateVmBeginTime);
  return 0;
}
