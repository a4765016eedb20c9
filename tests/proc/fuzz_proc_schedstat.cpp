// libFuzzer target: /proc/PID/task/TID/schedstat.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "userspace/proc/schedstat.h"

using namespace jfrbpf::proc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)parseSchedstat(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
