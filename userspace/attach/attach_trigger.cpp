#include "userspace/attach/attach_trigger.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "userspace/attach/attach_error.h"
#include "userspace/attach/run_as.h"

namespace jfrbpf::attach {
namespace {

enum class TriggerState { Created, AlreadyThere, Foreign, Failed };

struct TriggerAttempt {
  TriggerState state = TriggerState::Failed;
  int error = 0;
  uid_t foreignOwner = 0;
};

// Runs with the JVM's credentials, so the file is owned by its user as HotSpot requires.
TriggerAttempt createTrigger(int dirFd, const std::string& name, const Credentials& jvmUser) {
  TriggerAttempt attempt;
  UniqueFd fd(::openat(dirFd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  struct stat st {};
  if (fd) {
    // Some filesystems (squashed NFS, odd FUSE) give new files another owner; HotSpot would ignore the trigger.
    if (::fstat(fd.get(), &st) == 0 && st.st_uid == jvmUser.uid) {
      attempt.state = TriggerState::Created;
      return attempt;
    }
    ::unlinkat(dirFd, name.c_str(), 0);
    attempt.error = EPERM;
    return attempt;
  }
  attempt.error = errno;
  if (attempt.error == EEXIST && ::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    // Another client's trigger works for us too, if HotSpot will accept its owner.
    bool accepted = S_ISREG(st.st_mode) && (st.st_uid == jvmUser.uid || st.st_uid == 0);
    attempt.state = accepted ? TriggerState::AlreadyThere : TriggerState::Foreign;
    attempt.foreignOwner = st.st_uid;
  }
  return attempt;
}

[[noreturn]] void throwForeignTrigger(const TargetProcess& process, const std::string& where, uid_t owner) {
  throw AttachError(AttachFailure::UnsafeTarget,
                    where + " belongs to uid " + std::to_string(owner) + ", so " + process.describe() +
                        " will ignore it and never start its attach listener; remove that file and retry");
}

}  // namespace

AttachTrigger::AttachTrigger(int dirFd, std::string name)
    : dir_(::fcntl(dirFd, F_DUPFD_CLOEXEC, 0)), name_(std::move(name)) {}

AttachTrigger::~AttachTrigger() {
  if (dir_) ::unlinkat(dir_.get(), name_.c_str(), 0);
}

AttachTrigger placeAttachTrigger(const TargetProcess& process, int cwdFd, int tmpFd) {
  const Credentials jvmUser{process.target().effectiveUid, process.target().effectiveGid};
  const std::string name = ".attach_pid" + std::to_string(process.target().namespacePid);
  AttachTrigger trigger;
  runWithCredentials(jvmUser, [&] {
    if (cwdFd >= 0) {
      TriggerAttempt inCwd = createTrigger(cwdFd, name, jvmUser);
      if (inCwd.state == TriggerState::Created) {
        trigger = AttachTrigger(cwdFd, name);
        return;
      }
      if (inCwd.state == TriggerState::AlreadyThere) return;
      if (inCwd.state == TriggerState::Foreign) {
        throwForeignTrigger(process, name + " in the JVM's working directory", inCwd.foreignOwner);
      }
    }
    TriggerAttempt inTmp = createTrigger(tmpFd, name, jvmUser);
    if (inTmp.state == TriggerState::Created) {
      trigger = AttachTrigger(tmpFd, name);
      return;
    }
    if (inTmp.state == TriggerState::AlreadyThere) return;
    if (inTmp.state == TriggerState::Foreign) throwForeignTrigger(process, "/tmp/" + name, inTmp.foreignOwner);
    throw AttachError(AttachFailure::PermissionDenied,
                      "cannot create the attach trigger /tmp/" + name + " as uid " + std::to_string(jvmUser.uid) +
                          ": " + std::strerror(inTmp.error) + "; check that the JVM's /tmp is writable by its user");
  });
  return trigger;
}

void removeLeftoverTriggers(const TargetProcess& process, int cwdFd, int tmpFd) {
  const std::string name = ".attach_pid" + std::to_string(process.target().namespacePid);
  for (int dirFd : {cwdFd, tmpFd}) {
    struct stat st {};
    if (dirFd < 0 || ::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    if (st.st_uid == process.target().effectiveUid || st.st_uid == 0) ::unlinkat(dirFd, name.c_str(), 0);
  }
}

}  // namespace jfrbpf::attach
