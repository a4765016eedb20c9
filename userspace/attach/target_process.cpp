#include "userspace/attach/target_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "userspace/attach/attach_error.h"
#include "userspace/attach/mapped_files.h"
#include "userspace/attach/message_text.h"
#include "userspace/proc/files.h"
#include "userspace/proc/namespaces.h"
#include "userspace/proc/paths.h"
#include "userspace/proc/process_dir.h"

namespace jfrbpf::attach {
namespace {

constexpr size_t kStatusLimit = 64 * 1024;
constexpr size_t kMapsLimit = 64 * 1024 * 1024;

[[noreturn]] void throwProcError(pid_t pid, const std::string& what, int err) {
  if (err == ENOENT || err == ESRCH) {
    throw AttachError(AttachFailure::NoSuchProcess, "process " + std::to_string(pid) + " has exited; check the pid");
  }
  if (err == EACCES || err == EPERM) {
    // Another user's environ and auxv are 0400: reading them takes the DAC bypass as well as ptrace access.
    throw AttachError(AttachFailure::PermissionDenied,
                      "cannot read " + what + ": " + std::strerror(err) +
                          "; run jfrbpf as root (or with CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH)");
  }
  throw systemError("cannot read " + what, err);
}

bool sameNamespace(pid_t pid, proc::NamespaceKind kind) {
  return proc::sharesOurNamespace(pid, kind).value_or(true);  // unknown: nothing depends on it, it only informs
}

// The status of `pid` when /proc/<pid>/status could be read and has both ids (every kernel prints them).
std::optional<proc::ProcStatus> statusWithIds(const proc::FileData& text) {
  if (!text.ok()) return std::nullopt;
  proc::ProcStatus status = proc::parseStatus(text.bytes);
  if (!status.hasIds()) return std::nullopt;
  return status;
}

std::string unparsableStatus(pid_t pid) {
  return "cannot parse " + proc::procPath(pid, "status") + " (no Uid/Gid lines)";
}

}  // namespace

TargetProcess TargetProcess::open(pid_t pid) {
  if (pid <= 0) throw AttachError(AttachFailure::NoSuchProcess, "invalid pid " + std::to_string(pid));
  // Raw system calls: glibc 2.36 declares the pidfd wrappers without C linkage for C++.
  UniqueFd pidFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidFd) {
    int err = errno;
    // A thread id is refused (EINVAL, or ENOENT on newer kernels) although /proc shows it.
    std::optional<proc::ProcStatus> asThread =
        statusWithIds(proc::readFileAt(AT_FDCWD, proc::procPath(pid, "status").c_str(), kStatusLimit));
    if (asThread && asThread->tgid > 0 && asThread->tgid != pid) {
      throw AttachError(AttachFailure::NoSuchProcess, std::to_string(pid) + " is a thread of process " +
                                                          std::to_string(asThread->tgid) +
                                                          "; pass the process id");
    }
    if (err == ESRCH || err == ENOENT || err == EINVAL) {
      throw AttachError(AttachFailure::NoSuchProcess, "no process with pid " + std::to_string(pid) + "; check the pid");
    }
    throw systemError("cannot open pid " + std::to_string(pid), err);
  }

  const std::string statusPath = proc::procPath(pid, "status");
  proc::FileData statusText = proc::readFileAt(AT_FDCWD, statusPath.c_str(), kStatusLimit);
  if (!statusText.ok()) throwProcError(pid, statusPath, statusText.error);
  std::optional<proc::ProcStatus> status = statusWithIds(statusText);
  if (!status) throw AttachError(AttachFailure::ProtocolError, unparsableStatus(pid));

  Target target;
  target.pid = pid;
  target.namespacePid = status->innermostTgid() > 0 ? status->innermostTgid() : pid;
  target.effectiveUid = *status->effectiveUid;
  target.effectiveGid = *status->effectiveGid;
  target.name = oneLine(status->name, 64);
  target.otherMountNamespace = !sameNamespace(pid, proc::NamespaceKind::Mount);
  target.otherPidNamespace = target.namespacePid != pid;
  target.otherNetNamespace = !sameNamespace(pid, proc::NamespaceKind::Network);

  TargetProcess process(std::move(target), std::move(pidFd));
  // The pidfd was opened first: if the process is still alive now, what we read describes that process.
  process.ensureAlive("while jfrbpf inspected it");
  if (status->state == 'Z' || status->state == 'X') {
    throw AttachError(AttachFailure::NoSuchProcess, process.describe() + " has exited (zombie); check the pid");
  }
  return process;
}

bool TargetProcess::stopped() const {
  try {
    char state = status().state;
    return state == 'T' || state == 't';
  } catch (const Error&) {
    return false;
  }
}

int TargetProcess::sendSignal(int signo) const {
  return ::syscall(SYS_pidfd_send_signal, pidFd_.get(), signo, nullptr, 0) == 0 ? 0 : errno;
}

bool TargetProcess::alive() const {
  pollfd pfd{pidFd_.get(), POLLIN, 0};
  int ready = ::poll(&pfd, 1, 0);
  return ready == 0;
}

void TargetProcess::ensureAlive(const std::string& activity) const {
  if (!alive()) throw AttachError(AttachFailure::NoSuchProcess, describe() + " exited " + activity);
}

proc::ProcStatus TargetProcess::status() const {
  proc::ProcStatus status = proc::parseStatus(procFile("status", kStatusLimit));
  if (!status.hasIds()) throw AttachError(AttachFailure::ProtocolError, unparsableStatus(pid()));
  return status;
}

std::vector<proc::Mapping> TargetProcess::mappedFiles() const { return fileMappings(procFile("maps", kMapsLimit)); }

UniqueFd TargetProcess::openRoot() const {
  UniqueFd root = proc::openProcessRoot(pid());
  if (!root) {
    int err = errno;
    if (err == EACCES || err == EPERM) {
      throw AttachError(AttachFailure::PermissionDenied, "cannot open the root directory of " + describe() +
                                                             "; run jfrbpf as root (or with CAP_SYS_PTRACE)");
    }
    throw AttachError(AttachFailure::NoSuchProcess, describe() + " has exited");
  }
  return root;
}

std::string TargetProcess::procFile(const char* entry, size_t limit) const {
  const std::string path = proc::procPath(pid(), entry);
  proc::FileData result = proc::readFileAt(AT_FDCWD, path.c_str(), limit);
  if (!result.ok()) throwProcError(pid(), path, result.error);
  return std::move(result.bytes);
}

std::string TargetProcess::describe() const {
  std::string text = "pid " + std::to_string(target_.pid);
  if (!target_.name.empty()) text += " (" + target_.name + ")";
  return text;
}

}  // namespace jfrbpf::attach
