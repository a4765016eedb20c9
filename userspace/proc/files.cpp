#include "userspace/proc/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <memory>

#include "base/unique_fd.h"

namespace jfrbpf::proc {
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

bool mostlyHole(int fd, uint64_t offset, uint64_t length) {
  constexpr uint64_t kJudgedFrom = 1 << 20;
  // A file of many small extents is judged on the part these steps covered.
  constexpr int kMaxExtents = 256;
  if (length < kJudgedFrom || offset > static_cast<uint64_t>(INT64_MAX) - length) return false;
  const uint64_t end = offset + length;
  uint64_t at = offset;
  uint64_t data = 0;
  for (int extent = 0; extent < kMaxExtents && at < end; ++extent) {
    const off_t dataStart = ::lseek(fd, static_cast<off_t>(at), SEEK_DATA);
    if (dataStart < 0) {
      if (errno != ENXIO) return false;  // cannot tell
      at = end;                          // no data from `at` to the end of the file
      break;
    }
    if (static_cast<uint64_t>(dataStart) >= end) {
      at = end;
      break;
    }
    const off_t holeStart = ::lseek(fd, dataStart, SEEK_HOLE);
    if (holeStart < 0) return false;
    data += std::min(static_cast<uint64_t>(holeStart), end) - static_cast<uint64_t>(dataStart);
    at = static_cast<uint64_t>(holeStart);
  }
  return data * 2 < std::min(at, end) - offset;
}

FileData readRegularFile(int fd, size_t limit) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return FileData{{}, errno};
  if (!S_ISREG(info.st_mode)) return FileData{{}, EINVAL};
  return readFd(fd, limit);
}

}  // namespace jfrbpf::proc
