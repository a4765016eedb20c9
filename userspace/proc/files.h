#pragma once
// Bounded reads of files a process controls or /proc exposes about it: everything here may be shaped by the
// process (its name, its mappings, a file planted in its /tmp), so memory stays bounded whatever it wrote.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace jfrbpf::proc {

struct FileData {
  std::string bytes;
  int error = 0;  // errno of the failed open/read; 0 on success
  bool ok() const { return error == 0; }
};

// Reads at most `limit` bytes of `path`, relative to dirFd (AT_FDCWD or a directory); a longer file is cut.
FileData readFileAt(int dirFd, const char* path, size_t limit);
// At most `limit` bytes from an open file.
FileData readFd(int fd, size_t limit);

// Reads a regular file opened with O_NONBLOCK (a FIFO or device planted under the expected name is
// refused with EINVAL instead of blocking); at most `limit` bytes.
FileData readRegularFile(int fd, size_t limit);

// Whether [offset, offset + length) of `fd` is mostly (over half) a hole: a table an ELF file claims there is a
// hole that a hostile file was made long to look like (reading it costs its length in memory, for zeros). Ranges
// under 1 MiB are not judged (they cost little to read), nor files whose filesystem cannot tell data from holes.
bool mostlyHole(int fd, uint64_t offset, uint64_t length);

// Calls fn(line) for every line of the file (without '\n'); lines longer than maxLine are skipped, so memory
// stays bounded however large the file. fn returns false to stop. Returns 0 or the errno of open/read.
int forEachLineOfFile(int dirFd, const char* path, size_t maxLine, const std::function<bool(std::string_view)>& fn);

}  // namespace jfrbpf::proc
