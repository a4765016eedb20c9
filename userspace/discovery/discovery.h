#pragma once
// Finding HotSpot JVMs on the host without attaching to them: a process is one when it maps libjvm.so (and
// is not OpenJ9); its details come from its hsperfdata counters, read through /proc so that JVMs in
// containers are covered, else from its command line. Needs root (or CAP_SYS_PTRACE + CAP_SYS_ADMIN) to
// see other users' JVMs.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "userspace/discovery/jvm_info.h"
#include "userspace/proc/paths.h"

namespace jfrbpf::discovery {

struct DiscoveryOptions {
  std::string procRoot = proc::kProcRoot;
};

// nullopt when `pid` is not a HotSpot JVM or has exited. Throws jfrbpf::Error (ErrorKind::Environment)
// when we may not read its /proc entries (another user's process without root).
std::optional<JvmInfo> inspectJvm(pid_t pid, const DiscoveryOptions& options = {});

struct DiscoveryResult {
  std::vector<JvmInfo> jvms;      // in pid order
  std::vector<pid_t> unreadable;  // processes whose maps we may not read: run as root to include them
};

// Every HotSpot JVM visible in our pid namespace now.
DiscoveryResult discoverJvms(const DiscoveryOptions& options = {});

// The cheap test the watcher uses: reads only /proc/PID/maps. False for gone or unreadable processes.
bool isHotSpotJvm(pid_t pid, const DiscoveryOptions& options = {});

}  // namespace jfrbpf::discovery
