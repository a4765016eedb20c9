#pragma once
// Bounds-checked little-endian reader over a byte span. Every read either succeeds completely or fails
// and leaves the reader unusable (ok() == false), so parsers can read a whole record and check once.
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace jfrbpf::unwind {

class ByteReader {
 public:
  ByteReader() = default;
  explicit ByteReader(std::span<const uint8_t> bytes, size_t position = 0) : bytes_(bytes), pos_(position) {
    if (pos_ > bytes_.size()) fail();
  }

  bool ok() const { return ok_; }
  size_t position() const { return pos_; }
  size_t remaining() const { return ok_ ? bytes_.size() - pos_ : 0; }
  bool atEnd() const { return remaining() == 0; }
  std::span<const uint8_t> bytes() const { return bytes_; }

  template <typename T>
  T read() {
    static_assert(std::is_integral_v<T>);
    T value{};
    if (!require(sizeof(T))) return value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  uint8_t u8() { return read<uint8_t>(); }
  uint16_t u16() { return read<uint16_t>(); }
  uint32_t u32() { return read<uint32_t>(); }
  uint64_t u64() { return read<uint64_t>(); }

  // LEB128 values longer than 10 bytes, or with bits beyond 64, are malformed.
  uint64_t uleb128() {
    uint64_t result = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
      uint8_t byte = u8();
      if (!ok_) return 0;
      if (shift == 63 && (byte & 0x7e) != 0) return fail(), 0;
      result |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return result;
    }
    return fail(), 0;
  }

  int64_t sleb128() {
    uint64_t result = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
      uint8_t byte = u8();
      if (!ok_) return 0;
      if (shift == 63 && byte != 0 && byte != 0x7f) return fail(), 0;
      result |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        if (shift + 7 < 64 && (byte & 0x40) != 0) result |= ~uint64_t{0} << (shift + 7);
        return static_cast<int64_t>(result);
      }
    }
    return fail(), 0;
  }

  // A NUL-terminated string inside the span (the terminator is consumed, not returned).
  std::span<const uint8_t> cString() {
    if (!ok_) return {};
    const void* end = std::memchr(bytes_.data() + pos_, 0, bytes_.size() - pos_);
    if (end == nullptr) return fail(), std::span<const uint8_t>{};
    size_t length = static_cast<const uint8_t*>(end) - (bytes_.data() + pos_);
    std::span<const uint8_t> result = bytes_.subspan(pos_, length);
    pos_ += length + 1;
    return result;
  }

  std::span<const uint8_t> take(uint64_t length) {
    if (!require(length)) return {};
    std::span<const uint8_t> result = bytes_.subspan(pos_, static_cast<size_t>(length));
    pos_ += static_cast<size_t>(length);
    return result;
  }

  void skip(uint64_t length) { take(length); }

  void seek(size_t position) {
    if (position > bytes_.size()) return fail();
    pos_ = position;
  }

  void fail() { ok_ = false; }

 private:
  bool require(uint64_t length) {
    if (!ok_ || length > bytes_.size() - pos_) {
      ok_ = false;
      return false;
    }
    return true;
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace jfrbpf::unwind
