#pragma once
// Which namespaces a process is in, from its /proc/PID/ns/<kind> links: a process in a container sees other
// pids, another file system (reachable through /proc/PID/root) and another network. `procRoot` is kProcRoot
// outside tests.
#include <sys/types.h>

#include <optional>
#include <string>

#include "base/unique_fd.h"
#include "userspace/proc/paths.h"

namespace jfrbpf::proc {

enum class NamespaceKind { Pid, Mount, Network, Ipc, Uts, User, Cgroup, Time };

// The namespace's identity: the device and inode of /proc/PID/ns/<kind>.
struct NamespaceId {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const NamespaceId&) const = default;
};

// nullopt when the process is gone or we may not look (namespace links need ptrace-read access).
std::optional<NamespaceId> namespaceOf(pid_t pid, NamespaceKind kind, const std::string& procRoot = kProcRoot);
std::optional<NamespaceId> ourNamespace(NamespaceKind kind, const std::string& procRoot = kProcRoot);
// The same through an open /proc/PID directory (see openProcessDir), immune to pid reuse.
std::optional<NamespaceId> namespaceAt(int procDirFd, NamespaceKind kind);
// Whether `pid` is in the same namespace of this kind as the calling process; nullopt when unknown.
std::optional<bool> sharesOurNamespace(pid_t pid, NamespaceKind kind, const std::string& procRoot = kProcRoot);

// /proc/PID/ns/<kind> opened for setns(); invalid fd with errno set on failure.
UniqueFd openNamespace(pid_t pid, NamespaceKind kind);

}  // namespace jfrbpf::proc
