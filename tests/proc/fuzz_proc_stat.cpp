// libFuzzer target: /proc/PID/stat, whose comm a process chose (spaces and ')' included).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "userspace/proc/stat.h"

using namespace jfrbpf::proc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto stat = parseStat(text)) {
    (void)stat->kernelThread();
    // comm points into the text.
    if (stat->comm.data() < text.data() || stat->comm.data() + stat->comm.size() > text.data() + text.size()) {
      __builtin_trap();
    }
  }
  return 0;
}
