#include "userspace/unwind/byte_source.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "userspace/proc/files.h"

namespace jfrbpf::unwind {

ByteSource ByteSource::fromFd(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw systemError("cannot stat the ELF file to build unwind tables");
  if (!S_ISREG(st.st_mode)) throw Error("unwind tables need a regular ELF file, got another kind of file");
  ByteSource source;
  source.fd_ = fd;
  source.size_ = static_cast<uint64_t>(st.st_size);
  return source;
}

ByteSource ByteSource::fromBytes(std::span<const uint8_t> bytes) {
  ByteSource source;
  source.bytes_ = bytes;
  source.size_ = bytes.size();
  return source;
}

bool ByteSource::read(uint64_t offset, std::span<uint8_t> out) const {
  if (offset > size_ || out.size() > size_ - offset) return false;
  if (fd_ < 0) {
    if (!out.empty()) std::memcpy(out.data(), bytes_.data() + offset, out.size());
    return true;
  }
  size_t done = 0;
  while (done < out.size()) {
    ssize_t got = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

std::vector<uint8_t> ByteSource::readVector(uint64_t offset, uint64_t length) const {
  if (offset > size_ || length > size_ - offset) throw Error("ELF file is truncated: a section lies past its end");
  if (fd_ >= 0 && proc::mostlyHole(fd_, offset, length)) {
    throw Error("ELF file claims a section of " + std::to_string(length >> 20) + " MiB where it has a hole");
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(length));
  if (!read(offset, bytes)) throw Error("ELF file could not be read completely (did it shrink while being read?)");
  return bytes;
}

}  // namespace jfrbpf::unwind
