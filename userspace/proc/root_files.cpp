#include "userspace/proc/root_files.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

#include <cerrno>
#include <string>

namespace jfrbpf::proc {

UniqueFd openInRoot(int rootFd, std::string_view path, int flags, Links links) {
  const std::string terminated(path);
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  if (links == Links::kRefuse) how.resolve |= RESOLVE_NO_SYMLINKS;
  // EAGAIN: a concurrent rename inside the root made the kernel abandon the lookup; it is safe to retry.
  constexpr int kAttempts = 8;
  long fd = -1;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    fd = ::syscall(SYS_openat2, rootFd, terminated.c_str(), &how, sizeof how);
    if (fd >= 0 || (errno != EINTR && errno != EAGAIN)) break;
  }
  return UniqueFd(static_cast<int>(fd));
}

}  // namespace jfrbpf::proc
