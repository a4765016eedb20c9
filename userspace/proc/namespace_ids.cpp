#include "userspace/proc/namespace_ids.h"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <algorithm>

#include "base/unique_fd.h"
#include "userspace/proc/files.h"
#include "userspace/proc/namespaces.h"
#include "userspace/proc/process_dir.h"
#include "userspace/proc/status.h"

namespace jfrbpf::proc {
namespace {

constexpr size_t kStatusLimit = 64 * 1024;

// Only the namespace id lines are used, so any status file that could be read will do.
std::optional<ProcStatus> statusAt(const std::string& path) {
  FileData text = readFileAt(AT_FDCWD, path.c_str(), kStatusLimit);
  if (!text.ok()) return std::nullopt;
  return parseStatus(text.bytes);
}

// The pid namespace `levelsUp` parents above the one `pid` lives in (NS_GET_PARENT on its ns/pid link).
std::optional<NamespaceId> ancestorPidNamespace(pid_t pid, size_t levelsUp, const std::string& procRoot) {
  UniqueFd fd(::open(procPath(pid, "ns/pid", procRoot).c_str(), O_RDONLY | O_CLOEXEC));
  for (size_t level = 0; fd && level < levelsUp; ++level) fd = UniqueFd(::ioctl(fd.get(), NS_GET_PARENT));
  struct stat info {};
  if (!fd || ::fstat(fd.get(), &info) != 0) return std::nullopt;
  return NamespaceId{info.st_dev, info.st_ino};
}

}  // namespace

std::optional<pid_t> namespacePidOf(pid_t pid, const std::string& procRoot) {
  auto status = statusAt(procPath(pid, "status", procRoot));
  if (!status) return std::nullopt;
  // Kernels before 4.1 have no NStgid: the process is then seen as in our namespace.
  return status->nsTgid.empty() ? pid : status->innermostTgid();
}

std::optional<pid_t> namespaceTidOf(pid_t pid, pid_t tid, const std::string& procRoot) {
  auto status = statusAt(taskPath(pid, tid, "status", procRoot));
  if (!status || status->tgid != pid) return std::nullopt;
  return status->nsPid.empty() ? tid : status->innermostPid();
}

std::vector<ThreadIds> threadIdsOf(pid_t pid, const std::string& procRoot) {
  std::vector<ThreadIds> threads;
  for (pid_t tid : listTasks(pid, procRoot)) {
    auto status = statusAt(taskPath(pid, tid, "status", procRoot));
    if (!status) continue;  // exited meanwhile
    threads.push_back(ThreadIds{tid, status->nsPid.empty() ? tid : status->innermostPid()});
  }
  return threads;
}

std::optional<pid_t> hostTidOf(pid_t pid, pid_t nsTid, const std::string& procRoot) {
  for (const ThreadIds& thread : threadIdsOf(pid, procRoot)) {
    if (thread.nsTid == nsTid) return thread.tid;
  }
  return std::nullopt;
}

std::optional<pid_t> hostPidOf(pid_t nsPid, pid_t reference, const std::string& procRoot) {
  auto referenceStatus = statusAt(procPath(reference, "status", procRoot));
  auto referenceNamespace = namespaceOf(reference, NamespaceKind::Pid, procRoot);
  if (!referenceStatus || !referenceNamespace) return std::nullopt;
  // The reference's namespace is `depth` levels down from ours (ours is level 1). A process has an id there
  // when it lives in that namespace or one nested in it; the id is its NStgid entry at that level. Sibling
  // namespaces at the same level reuse ids, so the candidate's namespace at that level must be the
  // reference's.
  const size_t depth = std::max<size_t>(referenceStatus->nsTgid.size(), 1);
  if (depth == 1) {
    auto status = statusAt(procPath(nsPid, "status", procRoot));
    if (status && status->tgid == nsPid) return nsPid;
    return std::nullopt;
  }
  for (pid_t pid : listProcessIds(procRoot)) {
    auto status = statusAt(procPath(pid, "status", procRoot));
    if (!status || status->nsTgid.size() < depth || status->nsTgid[depth - 1] != nsPid) continue;
    if (ancestorPidNamespace(pid, status->nsTgid.size() - depth, procRoot) == referenceNamespace) return pid;
  }
  return std::nullopt;
}

}  // namespace jfrbpf::proc
