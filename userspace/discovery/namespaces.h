#pragma once
// Pid and mount namespace awareness: a process in a container has one id per pid namespace it is visible
// in (NStgid / NSpid in /proc/PID/status, ours first, its own last), and its files are only reachable
// through /proc/PID/root when its mount namespace is not ours. `procRoot` is "/proc" outside tests.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace jfrbpf::discovery {

enum class NamespaceKind { Pid, Mount, Network, Ipc, Uts, User, Cgroup, Time };

// The namespace's identity: the device and inode of /proc/PID/ns/<kind>.
struct NamespaceId {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const NamespaceId&) const = default;
};

// nullopt when the process is gone or we may not look (namespace links need ptrace-read access).
std::optional<NamespaceId> namespaceOf(pid_t pid, NamespaceKind kind, const std::string& procRoot = "/proc");
std::optional<NamespaceId> ourNamespace(NamespaceKind kind, const std::string& procRoot = "/proc");
// The same through an open /proc/PID directory (see openProcessDir), immune to pid reuse.
std::optional<NamespaceId> namespaceAt(int procDirFd, NamespaceKind kind);
// Whether `pid` is in the same namespace of this kind as the calling process; nullopt when unknown.
std::optional<bool> sharesOurNamespace(pid_t pid, NamespaceKind kind, const std::string& procRoot = "/proc");

// Process ids: `pid` is in our namespace; the result is the id the process sees for itself (last NStgid).
// nullopt when the process is gone or unreadable.
std::optional<pid_t> namespacePidOf(pid_t pid, const std::string& procRoot = "/proc");
// The same for one thread `tid` of process `pid` (last NSpid of /proc/PID/task/TID/status).
std::optional<pid_t> namespaceTidOf(pid_t pid, pid_t tid, const std::string& procRoot = "/proc");

struct ThreadIds {
  pid_t tid = 0;    // in our pid namespace
  pid_t nsTid = 0;  // as the thread sees itself (gettid() inside its namespace)
};
// Every live thread of `pid` with both ids: one pass over /proc/PID/task, for translating many ids at once.
std::vector<ThreadIds> threadIdsOf(pid_t pid, const std::string& procRoot = "/proc");
// Our tid of the thread of `pid` that sees itself as `nsTid`; nullopt when none does.
std::optional<pid_t> hostTidOf(pid_t pid, pid_t nsTid, const std::string& procRoot = "/proc");

// Our pid of the process that has id `nsPid` in the pid namespace `reference` lives in (e.g. the JVM's
// container). Scans /proc; nullopt when no process has that id there.
std::optional<pid_t> hostPidOf(pid_t nsPid, pid_t reference, const std::string& procRoot = "/proc");

}  // namespace jfrbpf::discovery
