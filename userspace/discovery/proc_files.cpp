#include "userspace/discovery/proc_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>

#include "userspace/discovery/text_fields.h"

namespace jfrbpf::discovery {
namespace {

// read() that retries on EINTR; -1 with errno otherwise.
ssize_t readSome(int fd, char* buffer, size_t size) {
  ssize_t n;
  do {
    n = ::read(fd, buffer, size);
  } while (n < 0 && errno == EINTR);
  return n;
}

}  // namespace

FileData readFd(int fd, size_t limit) {
  FileData result;
  constexpr size_t kChunk = 64 * 1024;
  while (result.bytes.size() < limit) {
    size_t before = result.bytes.size();
    size_t want = std::min(kChunk, limit - before);
    result.bytes.resize(before + want);
    ssize_t n = readSome(fd, result.bytes.data() + before, want);
    if (n < 0) {
      result.error = errno;
      result.bytes.clear();
      return result;
    }
    result.bytes.resize(before + static_cast<size_t>(n));
    if (n == 0) break;
  }
  return result;
}

FileData readFileAt(int dirFd, const char* path, size_t limit) {
  UniqueFd fd(::openat(dirFd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd) return FileData{{}, errno};
  return readFd(fd.get(), limit);
}

int forEachLineOfFile(int dirFd, const char* path, size_t maxLine, const std::function<bool(std::string_view)>& fn) {
  UniqueFd fd(::openat(dirFd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd) return errno;
  const size_t capacity = std::max<size_t>(maxLine + 1, 64 * 1024);
  auto buffer = std::make_unique<char[]>(capacity);
  size_t filled = 0;
  bool skipping = false;  // inside a line that outgrew the buffer
  for (;;) {
    ssize_t n = readSome(fd.get(), buffer.get() + filled, capacity - filled);
    if (n < 0) return errno;
    const bool atEnd = n == 0;
    filled += static_cast<size_t>(n);
    std::string_view pending(buffer.get(), filled);
    size_t consumed = 0;
    for (;;) {
      size_t newline = pending.find('\n', consumed);
      if (newline == std::string_view::npos) break;
      std::string_view line = pending.substr(consumed, newline - consumed);
      consumed = newline + 1;
      if (skipping) {
        skipping = false;
        continue;
      }
      if (line.size() <= maxLine && !fn(line)) return 0;
    }
    std::string_view rest = pending.substr(consumed);
    if (atEnd) {
      if (!skipping && !rest.empty() && rest.size() <= maxLine) fn(rest);
      return 0;
    }
    if (rest.size() == capacity) {  // no newline in a full buffer: drop this line
      skipping = true;
      filled = 0;
    } else {
      std::copy(rest.begin(), rest.end(), buffer.get());
      filled = rest.size();
    }
  }
}

UniqueFd openProcessDir(const std::string& procRoot, pid_t pid) {
  std::string path = procRoot + "/" + std::to_string(pid);
  return UniqueFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

UniqueFd openInRoot(int rootFd, std::string_view path, int extraFlags) {
  std::string terminated(path);
  open_how how{};
  how.flags = static_cast<uint64_t>(O_RDONLY | O_CLOEXEC | O_NOCTTY | extraFlags);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  // EAGAIN: a concurrent rename inside the root made the kernel abandon the lookup; it is safe to retry.
  long fd = -1;
  for (int attempt = 0; attempt < 8; ++attempt) {
    fd = ::syscall(SYS_openat2, rootFd, terminated.c_str(), &how, sizeof how);
    if (fd >= 0 || (errno != EINTR && errno != EAGAIN)) break;
  }
  return UniqueFd(static_cast<int>(fd));
}

FileData readRegularFile(int fd, size_t limit) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return FileData{{}, errno};
  if (!S_ISREG(info.st_mode)) return FileData{{}, EINVAL};
  return readFd(fd, limit);
}

std::vector<pid_t> listProcessIds(const std::string& procRoot) {
  std::vector<pid_t> pids;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(procRoot.c_str()), ::closedir);
  if (!dir) return pids;
  while (const dirent* entry = ::readdir(dir.get())) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    if (auto pid = parseNumber<pid_t>(entry->d_name)) pids.push_back(*pid);
  }
  return pids;
}

}  // namespace jfrbpf::discovery
