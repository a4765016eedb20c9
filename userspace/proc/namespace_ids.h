#pragma once
// Process and thread ids across pid namespaces: a process in a container has one id per pid namespace it is
// visible in (NStgid / NSpid in /proc/PID/status, ours first, its own last). `procRoot` is kProcRoot outside
// tests.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "userspace/proc/paths.h"

namespace jfrbpf::proc {

// Process ids: `pid` is in our namespace; the result is the id the process sees for itself (last NStgid).
// nullopt when the process is gone or unreadable.
std::optional<pid_t> namespacePidOf(pid_t pid, const std::string& procRoot = kProcRoot);
// The same for one thread `tid` of process `pid` (last NSpid of /proc/PID/task/TID/status).
std::optional<pid_t> namespaceTidOf(pid_t pid, pid_t tid, const std::string& procRoot = kProcRoot);

struct ThreadIds {
  pid_t tid = 0;    // in our pid namespace
  pid_t nsTid = 0;  // as the thread sees itself (gettid() inside its namespace)
};
// Every live thread of `pid` with both ids: one pass over /proc/PID/task, for translating many ids at once.
std::vector<ThreadIds> threadIdsOf(pid_t pid, const std::string& procRoot = kProcRoot);
// Our tid of the thread of `pid` that sees itself as `nsTid`; nullopt when none does.
std::optional<pid_t> hostTidOf(pid_t pid, pid_t nsTid, const std::string& procRoot = kProcRoot);

// Our pid of the process that has id `nsPid` in the pid namespace `reference` lives in (e.g. the JVM's
// container). Scans /proc; nullopt when no process has that id there.
std::optional<pid_t> hostPidOf(pid_t nsPid, pid_t reference, const std::string& procRoot = kProcRoot);

}  // namespace jfrbpf::proc
