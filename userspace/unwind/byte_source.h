#pragma once
// Where the bytes of an ELF file come from: a file descriptor read with pread, or a caller's buffer.
// Files are never mmap'ed: a file inside a container can be truncated by its owner while we parse it, and a
// mapped page past the new end would kill the profiler with SIGBUS; pread just returns short.
#include <cstdint>
#include <span>
#include <vector>

namespace jfrbpf::unwind {

class ByteSource {
 public:
  // The fd is borrowed: it must stay open while this source is used. Its size is taken once (fstat).
  static ByteSource fromFd(int fd);
  // The bytes are borrowed, not copied.
  static ByteSource fromBytes(std::span<const uint8_t> bytes);

  uint64_t size() const { return size_; }
  // Reads exactly out.size() bytes at offset; false when out of range or the file shrank.
  bool read(uint64_t offset, std::span<uint8_t> out) const;
  // Reads [offset, offset+length) into a new vector; throws jfrbpf::Error when out of range.
  std::vector<uint8_t> readVector(uint64_t offset, uint64_t length) const;

 private:
  int fd_ = -1;
  std::span<const uint8_t> bytes_;
  uint64_t size_ = 0;
};

}  // namespace jfrbpf::unwind
