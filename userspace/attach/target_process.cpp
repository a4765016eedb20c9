#include "userspace/attach/target_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "userspace/attach/attach_error.h"
#include "userspace/attach/proc_io.h"
#include "userspace/attach/text_fields.h"

namespace jfrbpf::attach {
namespace {

constexpr size_t kStatusLimit = 64 * 1024;
constexpr size_t kMapsLimit = 64 * 1024 * 1024;

[[noreturn]] void throwProcError(pid_t pid, const std::string& what, int err) {
  if (err == ENOENT || err == ESRCH) {
    throw AttachError(AttachFailure::NoSuchProcess, "process " + std::to_string(pid) + " has exited; check the pid");
  }
  if (err == EACCES || err == EPERM) {
    throw AttachError(AttachFailure::PermissionDenied, "cannot read " + what + ": " + std::strerror(err) +
                                                           "; run jfrbpf as root (or with CAP_SYS_PTRACE)");
  }
  throw systemError("cannot read " + what, err);
}

bool sameNamespace(pid_t pid, const char* kind) {
  struct stat ours {};
  struct stat theirs {};
  std::string entry = std::string("ns/") + kind;
  if (::stat(("/proc/self/" + entry).c_str(), &ours) != 0 ||
      ::stat(procPath(pid, entry.c_str()).c_str(), &theirs) != 0) {
    return true;  // unknown: nothing depends on it being right, it only informs
  }
  return ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino;
}

}  // namespace

TargetProcess TargetProcess::open(pid_t pid) {
  if (pid <= 0) throw AttachError(AttachFailure::NoSuchProcess, "invalid pid " + std::to_string(pid));
  // Raw system calls: glibc 2.36 declares the pidfd wrappers without C linkage for C++.
  UniqueFd pidFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidFd) {
    int err = errno;
    // A thread id is refused (EINVAL, or ENOENT on newer kernels) although /proc shows it.
    ReadResult threadStatus = readBounded(AT_FDCWD, procPath(pid, "status"), kStatusLimit);
    std::optional<ProcStatus> asThread = threadStatus.error ? std::nullopt : parseProcStatus(threadStatus.data);
    if (asThread && asThread->threadGroup > 0 && asThread->threadGroup != pid) {
      throw AttachError(AttachFailure::NoSuchProcess, std::to_string(pid) + " is a thread of process " +
                                                          std::to_string(asThread->threadGroup) +
                                                          "; pass the process id");
    }
    if (err == ESRCH || err == ENOENT || err == EINVAL) {
      throw AttachError(AttachFailure::NoSuchProcess, "no process with pid " + std::to_string(pid) + "; check the pid");
    }
    throw systemError("cannot open pid " + std::to_string(pid), err);
  }

  ReadResult statusText = readBounded(AT_FDCWD, procPath(pid, "status"), kStatusLimit);
  if (statusText.error) throwProcError(pid, procPath(pid, "status"), statusText.error);
  std::optional<ProcStatus> status = parseProcStatus(statusText.data);
  if (!status) {
    throw AttachError(AttachFailure::ProtocolError, "cannot parse " + procPath(pid, "status") + " (no Uid/Gid lines)");
  }

  Target target;
  target.pid = pid;
  target.namespacePid = status->namespacePid > 0 ? status->namespacePid : pid;
  target.effectiveUid = status->effectiveUid;
  target.effectiveGid = status->effectiveGid;
  target.name = oneLine(status->name, 64);
  target.otherMountNamespace = !sameNamespace(pid, "mnt");
  target.otherPidNamespace = target.namespacePid != pid;
  target.otherNetNamespace = !sameNamespace(pid, "net");

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

ProcStatus TargetProcess::status() const {
  std::string text = procFile("status", kStatusLimit);
  std::optional<ProcStatus> status = parseProcStatus(text);
  if (!status) {
    throw AttachError(AttachFailure::ProtocolError,
                      "cannot parse " + procPath(pid(), "status") + " (no Uid/Gid lines)");
  }
  return *status;
}

std::vector<MappedFile> TargetProcess::mappedFiles() const { return parseMappedFiles(procFile("maps", kMapsLimit)); }

std::string TargetProcess::procFile(const char* entry, size_t limit) const {
  ReadResult result = readBounded(AT_FDCWD, procPath(pid(), entry), limit);
  if (result.error) throwProcError(pid(), procPath(pid(), entry), result.error);
  return std::move(result.data);
}

std::string TargetProcess::describe() const {
  std::string text = "pid " + std::to_string(target_.pid);
  if (!target_.name.empty()) text += " (" + target_.name + ")";
  return text;
}

}  // namespace jfrbpf::attach
