#pragma once
// The .attach_pid<nspid> file that makes a HotSpot JVM start its attach listener when it next receives
// SIGQUIT. HotSpot looks for it in its working directory first and only then in /tmp, and ignores it unless
// its owner is the JVM's effective uid (or root), so it is created as the JVM's user.
#include <string>

#include "base/unique_fd.h"
#include "userspace/attach/target_process.h"

namespace jfrbpf::attach {

// Removes the trigger it holds when destroyed; holds none when another client's trigger was already there.
class AttachTrigger {
 public:
  AttachTrigger() = default;
  AttachTrigger(int dirFd, std::string name);
  AttachTrigger(AttachTrigger&&) = default;
  AttachTrigger& operator=(AttachTrigger&&) = default;
  ~AttachTrigger();

 private:
  UniqueFd dir_;
  std::string name_;
};

// Creates the trigger in the JVM's working directory (cwdFd, skipped when negative), else in its /tmp (tmpFd),
// never following a link. A trigger HotSpot would reject that is in the way (a file of another user) is an
// AttachError(UnsafeTarget) naming it; failing to create one anywhere is AttachError(PermissionDenied).
AttachTrigger placeAttachTrigger(const TargetProcess& process, int cwdFd, int tmpFd);

// Once the JVM's listener runs no trigger is needed: removes those a client left behind (one killed between
// placing and removing it), where HotSpot would have taken them (its user's or root's regular files).
void removeLeftoverTriggers(const TargetProcess& process, int cwdFd, int tmpFd);

}  // namespace jfrbpf::attach
