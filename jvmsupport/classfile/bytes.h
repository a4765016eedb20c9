#pragma once
// Big-endian reading and writing for class files. Reads are bounds-checked and throw ClassFileError, which
// never leaves the library: the public entry points turn it into a skip reason or a class-level error.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace jfrbpf::classfile {

// Malformed or unsupported input; the message says what, for a skip reason.
class ClassFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes, size_t position = 0) : bytes_(bytes), pos_(position) {
    if (pos_ > bytes_.size()) throw ClassFileError("truncated class file");
  }

  size_t position() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  std::span<const uint8_t> bytes() const { return bytes_; }

  uint8_t u1() {
    require(1);
    return bytes_[pos_++];
  }
  uint16_t u2() {
    require(2);
    uint16_t value = static_cast<uint16_t>(bytes_[pos_] << 8 | bytes_[pos_ + 1]);
    pos_ += 2;
    return value;
  }
  uint32_t u4() {
    require(4);
    uint32_t value = static_cast<uint32_t>(bytes_[pos_]) << 24 | static_cast<uint32_t>(bytes_[pos_ + 1]) << 16 |
                     static_cast<uint32_t>(bytes_[pos_ + 2]) << 8 | bytes_[pos_ + 3];
    pos_ += 4;
    return value;
  }
  std::span<const uint8_t> take(size_t length) {
    require(length);
    std::span<const uint8_t> result = bytes_.subspan(pos_, length);
    pos_ += length;
    return result;
  }
  void skip(size_t length) { take(length); }

 private:
  void require(size_t length) const {
    if (length > bytes_.size() - pos_) throw ClassFileError("truncated class file");
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

inline uint16_t loadU2(std::span<const uint8_t> bytes, size_t at) {
  if (at + 2 > bytes.size()) throw ClassFileError("truncated instruction");
  return static_cast<uint16_t>(bytes[at] << 8 | bytes[at + 1]);
}
inline int32_t loadS4(std::span<const uint8_t> bytes, size_t at) {
  if (at + 4 > bytes.size()) throw ClassFileError("truncated instruction");
  return static_cast<int32_t>(static_cast<uint32_t>(bytes[at]) << 24 | static_cast<uint32_t>(bytes[at + 1]) << 16 |
                              static_cast<uint32_t>(bytes[at + 2]) << 8 | bytes[at + 3]);
}

class Writer {
 public:
  void u1(uint32_t value) { bytes_.push_back(static_cast<uint8_t>(value)); }
  void u2(uint32_t value) {
    u1(value >> 8);
    u1(value);
  }
  void u4(uint32_t value) {
    u2(value >> 16);
    u2(value);
  }
  void append(std::span<const uint8_t> bytes) { bytes_.insert(bytes_.end(), bytes.begin(), bytes.end()); }

  size_t size() const { return bytes_.size(); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace jfrbpf::classfile
