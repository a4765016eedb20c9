#include "userspace/attach/proc_io.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace jfrbpf::attach {

ReadResult readBounded(int dirFd, const std::string& path, size_t limit) {
  UniqueFd fd(::openat(dirFd, path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd) return ReadResult{{}, errno};
  return readAll(fd.get(), limit);
}

ReadResult readAll(int fd, size_t limit) {
  ReadResult result;
  constexpr size_t kChunk = 64 * 1024;
  while (result.data.size() < limit) {
    size_t before = result.data.size();
    size_t want = std::min(kChunk, limit - before);
    result.data.resize(before + want);
    ssize_t n = ::read(fd, result.data.data() + before, want);
    if (n < 0 && errno == EINTR) {
      result.data.resize(before);
      continue;
    }
    if (n < 0) {
      result.error = errno;
      result.data.clear();
      return result;
    }
    result.data.resize(before + static_cast<size_t>(n));
    if (n == 0) break;
  }
  return result;
}

UniqueFd openInRoot(int rootFd, const std::string& path, int flags) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  // EAGAIN: a concurrent rename inside the root made the kernel give up on this resolution; retry a few times.
  constexpr int kAttempts = 8;
  long fd = -1;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    fd = ::syscall(SYS_openat2, rootFd, path.c_str(), &how, sizeof how);
    if (fd >= 0 || (errno != EINTR && errno != EAGAIN)) break;
  }
  return UniqueFd(static_cast<int>(fd));
}

std::string procPath(int pid, const char* entry) { return "/proc/" + std::to_string(pid) + "/" + entry; }

}  // namespace jfrbpf::attach
