#pragma once
// Runs a piece of work with a target's effective uid/gid without changing the credentials of the calling
// process: HotSpot only accepts attach triggers and connections from its own user, but the loader must keep
// its root credentials on every other thread.
#include <sys/types.h>

#include <functional>

namespace jfrbpf::attach {

struct Credentials {
  uid_t uid = 0;
  gid_t gid = 0;
};

// Calls work() on a short-lived dedicated thread whose effective (and filesystem) uid/gid are `as`, with no
// supplementary groups; runs it inline when we already are that user. Exceptions thrown by work() are
// rethrown here. Throws AttachError(PermissionDenied) when we may not switch to that user.
void runWithCredentials(const Credentials& as, const std::function<void()>& work);

}  // namespace jfrbpf::attach
