#include "formats/jfr/reader/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <utility>

#include "base/error.h"
#include "base/unique_fd.h"

namespace jfrbpf::jfr::reader {

MappedFile::MappedFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw systemError("cannot open " + path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw systemError("cannot stat " + path);
  if (!S_ISREG(st.st_mode)) throw Error(path + " is not a regular file");
  size_ = static_cast<size_t>(st.st_size);
  if (size_ == 0) return;  // mmap refuses empty mappings; an empty span is what we want
  void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (mapped == MAP_FAILED) throw systemError("cannot map " + path);
  data_ = static_cast<const uint8_t*>(mapped);
  ::madvise(mapped, size_, MADV_SEQUENTIAL);  // events are read front to back
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    unmap();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() { unmap(); }

void MappedFile::unmap() noexcept {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
}

}  // namespace jfrbpf::jfr::reader
