#pragma once
// Reading what /proc exposes about another process, and files inside that process's root, with bounded
// memory: everything here may be shaped by the process (file names, mappings, a symlink planted in its
// /tmp), so reads are capped and lookups inside its root never follow a symbolic link.
#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "userspace/base/unique_fd.h"

namespace jfrbpf::discovery {

struct FileData {
  std::string bytes;
  int error = 0;  // errno of the failed open/read; 0 on success
  bool ok() const { return error == 0; }
};

// Reads at most `limit` bytes of `path`, relative to dirFd (AT_FDCWD or a directory).
FileData readFileAt(int dirFd, const char* path, size_t limit);
// At most `limit` bytes from an open file.
FileData readFd(int fd, size_t limit);

// Calls fn(line) for every line of the file (without '\n'); lines longer than maxLine are skipped, so memory
// stays bounded however large the file. fn returns false to stop. Returns 0 or the errno of open/read.
int forEachLineOfFile(int dirFd, const char* path, size_t maxLine, const std::function<bool(std::string_view)>& fn);

// /proc/<pid> opened as a directory: reads relative to it all refer to this process, even if it exits
// and its pid is reused meanwhile (they then fail with ESRCH). Invalid fd with errno set on failure.
UniqueFd openProcessDir(const std::string& procRoot, pid_t pid);

// openat2(rootFd, path, O_RDONLY | extraFlags, RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
// RESOLVE_NO_MAGICLINKS): `path` is resolved inside the directory rootFd refers to (a process's
// /proc/PID/root) and no symbolic link is followed. Invalid fd with errno set on failure.
UniqueFd openInRoot(int rootFd, std::string_view path, int extraFlags = 0);

// Reads a regular file opened with O_NONBLOCK (a FIFO or device planted under the expected name is
// refused with EINVAL instead of blocking); at most `limit` bytes.
FileData readRegularFile(int fd, size_t limit);

// The numeric entries of procRoot (process ids), in directory order.
std::vector<pid_t> listProcessIds(const std::string& procRoot);

}  // namespace jfrbpf::discovery
