#pragma once
// Opening files inside a process's root (/proc/PID/root) as that process would see them, without ever being
// led out of it: a container's absolute symlink, ".." or a /proc magic link must not reach a host file.
#include <string_view>

#include "base/unique_fd.h"

namespace jfrbpf::proc {

// Whether symbolic links inside the root are followed.
enum class Links {
  kRefuse,            // none is: for names the target controls and we act on (its /tmp, its hsperfdata file)
  kFollowInsideRoot,  // as the process would, but never out of its root: libraries ("/lib" -> "usr/lib")
};

// openat2(rootFd, path, flags | O_CLOEXEC) with RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, plus
// RESOLVE_NO_SYMLINKS unless `links` allows them: `path`, absolute or relative, is resolved inside the
// directory rootFd refers to. Invalid fd with errno set on failure.
UniqueFd openInRoot(int rootFd, std::string_view path, int flags, Links links = Links::kRefuse);

}  // namespace jfrbpf::proc
