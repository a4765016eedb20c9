#include "userspace/proc/namespaces.h"

#include <fcntl.h>
#include <sys/stat.h>

namespace jfrbpf::proc {
namespace {

const char* linkName(NamespaceKind kind) {
  switch (kind) {
    case NamespaceKind::Pid: return "pid";
    case NamespaceKind::Mount: return "mnt";
    case NamespaceKind::Network: return "net";
    case NamespaceKind::Ipc: return "ipc";
    case NamespaceKind::Uts: return "uts";
    case NamespaceKind::User: return "user";
    case NamespaceKind::Cgroup: return "cgroup";
    case NamespaceKind::Time: return "time";
  }
  return "pid";
}

std::string linkPath(NamespaceKind kind) { return std::string("ns/") + linkName(kind); }

std::optional<NamespaceId> namespaceIn(const std::string& processDir, NamespaceKind kind) {
  UniqueFd dir(::open(processDir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return std::nullopt;
  return namespaceAt(dir.get(), kind);
}

}  // namespace

std::optional<NamespaceId> namespaceAt(int procDirFd, NamespaceKind kind) {
  struct stat info {};
  if (::fstatat(procDirFd, linkPath(kind).c_str(), &info, 0) != 0) return std::nullopt;
  return NamespaceId{info.st_dev, info.st_ino};
}

std::optional<NamespaceId> namespaceOf(pid_t pid, NamespaceKind kind, const std::string& procRoot) {
  return namespaceIn(processDirPath(pid, procRoot), kind);
}

std::optional<NamespaceId> ourNamespace(NamespaceKind kind, const std::string& procRoot) {
  return namespaceIn(procRoot + "/self", kind);
}

std::optional<bool> sharesOurNamespace(pid_t pid, NamespaceKind kind, const std::string& procRoot) {
  auto theirs = namespaceOf(pid, kind, procRoot);
  auto ours = ourNamespace(kind, procRoot);
  if (!theirs || !ours) return std::nullopt;
  return *theirs == *ours;
}

UniqueFd openNamespace(pid_t pid, NamespaceKind kind) {
  return UniqueFd(::open(procPath(pid, linkPath(kind)).c_str(), O_RDONLY | O_CLOEXEC));
}

}  // namespace jfrbpf::proc
