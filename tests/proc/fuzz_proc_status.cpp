// libFuzzer target: /proc/PID/status, which holds the name a process chose for itself.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "userspace/proc/status.h"

using namespace jfrbpf::proc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ProcStatus status = parseStatus(text);
  (void)status.catches(static_cast<int>(status.innermostTgid() % 70));
  (void)status.innermostPid();
  if (status.name.size() > 64) __builtin_trap();
  for (pid_t pid : status.nsTgid) {
    if (pid <= 0) __builtin_trap();
  }
  return 0;
}
