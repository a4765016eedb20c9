#include "userspace/record/session/privileges.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "base/error.h"

namespace jfrbpf::record {
namespace {

// Not all libc headers know the 5.8+ capabilities.
constexpr int kCapSysPtrace = 19;
constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;
constexpr int kCapBpf = 39;

bool hasCapability(const __user_cap_data_struct (&data)[2], int cap) {
  return (data[cap / 32].effective & (1u << (cap % 32))) != 0;
}

}  // namespace

void requireProfilingPrivileges() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return;  // cannot tell: let the real operations decide
  const bool admin = hasCapability(data, kCapSysAdmin);
  std::string missing;
  auto need = [&](int cap, const char* name) {
    if (!hasCapability(data, cap) && !admin) missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  need(kCapBpf, "CAP_BPF");
  need(kCapPerfmon, "CAP_PERFMON");
  need(kCapSysPtrace, "CAP_SYS_PTRACE");
  if (!missing.empty()) {
    throw Error("not permitted: profiling needs root, or the capabilities CAP_BPF, CAP_PERFMON and "
                "CAP_SYS_PTRACE (missing: " + missing + "); run with sudo",
                ErrorKind::Environment);
  }
}

rlimit raiseOpenFileLimit() {
  constexpr rlim_t kWanted = 1u << 20;  // the kernel's default fs.nr_open
  rlimit original{};
  if (getrlimit(RLIMIT_NOFILE, &original) != 0) return original;
  rlimit raised{std::max(original.rlim_max, kWanted), std::max(original.rlim_max, kWanted)};
  if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
    raised = {original.rlim_max, original.rlim_max};
    setrlimit(RLIMIT_NOFILE, &raised);  // if even this fails, the first perf event too many says so
  }
  return original;
}

}  // namespace jfrbpf::record
