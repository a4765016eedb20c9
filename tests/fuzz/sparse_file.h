#pragma once
// Fuzz inputs as files that may be sparse, as a hostile file made long with ftruncate is: the last two bytes
// of an input give the length of a hole, in 64 KiB units (up to 4 GiB), that follows the input's other bytes.
// The file is a memfd, so its holes cost no memory, as on disk; a reader that trusts a length the hole makes
// plausible reads gigabytes of zeros and meets the fuzzer's RSS limit.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace jfrbpf::fuzz {

class SparseFile {
 public:
  SparseFile() : fd_(memfd_create("fuzz-sparse", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
  }
  SparseFile(const SparseFile&) = delete;
  SparseFile& operator=(const SparseFile&) = delete;
  ~SparseFile() { close(fd_); }

  // Makes the file hold `input` as described above; returns the fd (owned by this object).
  int fill(const uint8_t* input, size_t size) {
    size_t dataSize = size;
    uint64_t hole = 0;
    if (size >= 2) {
      dataSize = size - 2;
      hole = (uint64_t{input[size - 2]} | uint64_t{input[size - 1]} << 8) << 16;
    }
    if (ftruncate(fd_, 0) != 0 ||
        (dataSize > 0 && pwrite(fd_, input, dataSize, 0) != static_cast<ssize_t>(dataSize)) ||
        ftruncate(fd_, static_cast<off_t>(dataSize + hole)) != 0) {
      std::abort();
    }
    return fd_;
  }

 private:
  int fd_;
};

}  // namespace jfrbpf::fuzz
