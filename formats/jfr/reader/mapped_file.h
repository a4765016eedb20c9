#pragma once
// A read-only memory mapping of a whole file, unmapped on destruction.
#include <cstdint>
#include <span>
#include <string>

namespace jfrbpf::jfr::reader {

class MappedFile {
 public:
  // Throws jfrbpf::Error naming the path when the file cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  void unmap() noexcept;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace jfrbpf::jfr::reader
