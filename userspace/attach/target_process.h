#pragma once
// A process we are about to attach to, pinned by a pidfd so that a pid reused by another process can never be
// signalled or mistaken for the original. Identity facts come from /proc/PID/status.
#include <sys/types.h>

#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "userspace/proc/maps.h"
#include "userspace/proc/status.h"

namespace jfrbpf::attach {

struct Target {
  pid_t pid = 0;           // in our pid namespace: for /proc and signals
  pid_t namespacePid = 0;  // as the process sees itself (last NStgid): HotSpot names its files after this
  uid_t effectiveUid = 0;  // HotSpot only trusts triggers and peers with its effective uid/gid (or root)
  gid_t effectiveGid = 0;
  std::string name;                  // command name, for messages
  bool otherMountNamespace = false;  // its files are only reachable through /proc/PID/root
  bool otherPidNamespace = false;    // namespacePid differs from pid
  bool otherNetNamespace = false;
};

class TargetProcess {
 public:
  // Throws AttachError: NoSuchProcess (no such pid, a thread id, a zombie) or PermissionDenied.
  static TargetProcess open(pid_t pid);

  const Target& target() const { return target_; }
  pid_t pid() const { return target_.pid; }
  int pidFd() const { return pidFd_.get(); }

  bool alive() const;
  // Stopped by SIGSTOP or a debugger: it will not answer anything until resumed.
  bool stopped() const;
  // Signals exactly this process (never a successor with a reused pid); 0 or the errno.
  int sendSignal(int signo) const;
  // Throws AttachError(NoSuchProcess) naming `activity` when the process has exited.
  void ensureAlive(const std::string& activity) const;

  // Fresh reads; throw AttachError (NoSuchProcess / PermissionDenied) when /proc cannot be read.
  proc::ProcStatus status() const;  // always with both ids (AttachError ProtocolError otherwise)
  std::vector<proc::Mapping> mappedFiles() const;  // file mappings only (mapped_files.h)
  std::string procFile(const char* entry, size_t limit) const;
  // Its root directory (/proc/PID/root), where its own paths resolve; throws AttachError as above.
  UniqueFd openRoot() const;

  // "pid 1234 (java)", for messages.
  std::string describe() const;

 private:
  TargetProcess(Target target, UniqueFd pidFd) : target_(std::move(target)), pidFd_(std::move(pidFd)) {}

  Target target_;
  UniqueFd pidFd_;
};

}  // namespace jfrbpf::attach
