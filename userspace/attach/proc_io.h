#pragma once
// File access for files a target process controls or exposes: bounded reads, and lookups confined to the
// target's root directory that refuse symbolic links, so a container cannot steer us to a host file.
#include <string>

#include "userspace/base/unique_fd.h"

namespace jfrbpf::attach {

struct ReadResult {
  std::string data;
  int error = 0;  // errno of the failed open/read, 0 on success
};

// Reads at most `limit` bytes of `path` (relative to dirFd unless absolute); a longer file is truncated.
ReadResult readBounded(int dirFd, const std::string& path, size_t limit);
// The same for an open file.
ReadResult readAll(int fd, size_t limit);

// openat2(rootFd, path, flags, RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS): `path` is
// interpreted inside the directory rootFd refers to and no symbolic link is followed on the way.
// Returns an invalid fd with errno set on failure.
UniqueFd openInRoot(int rootFd, const std::string& path, int flags);

// /proc/<pid>/<entry> as a string, for the paths the code builds repeatedly.
std::string procPath(int pid, const char* entry);

}  // namespace jfrbpf::attach
