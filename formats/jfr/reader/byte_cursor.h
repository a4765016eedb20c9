#pragma once
// Bounds-checked reading of JFR's wire primitives. Every read checks the bytes left first, so hostile input
// can only ever produce a FormatError naming the absolute file offset, never an out-of-bounds access.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "base/error.h"

namespace jfrbpf::jfr::reader {

// Malformed input. The message reads "offset <n>: <what was wrong>".
class FormatError : public Error {
 public:
  FormatError(uint64_t fileOffset, const std::string& what);
};

class ByteCursor {
 public:
  // `fileOffset` is the position of bytes[0] in the file, used only for error messages.
  ByteCursor(std::span<const uint8_t> bytes, uint64_t fileOffset) : bytes_(bytes), base_(fileOffset) {}

  uint64_t fileOffset() const { return base_ + pos_; }
  size_t position() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  bool atEnd() const { return pos_ == bytes_.size(); }

  uint8_t u8() {
    need(1);
    return bytes_[pos_++];
  }
  uint16_t u16be();
  uint32_t u32be();
  uint64_t u64be();
  float f32be();
  double f64be();

  // LEB128 as JFR writes it: 7-bit groups, least significant first, at most 9 bytes; the 9th byte carries
  // the top 8 bits whole. Padded encodings (continuation bits on leading zero groups) are accepted.
  uint64_t varint() {
    if (remaining() >= 9) {  // fast path: no per-byte bounds check
      uint64_t result = 0;
      for (int shift = 0; shift < 56; shift += 7) {
        uint8_t b = bytes_[pos_++];
        result |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80)) return result;
      }
      return result | (uint64_t(bytes_[pos_++]) << 56);
    }
    return varintSlow();
  }
  int64_t varlong() { return static_cast<int64_t>(varint()); }

  // A varint element count, rejected when `count * minBytesEach` (minBytesEach >= 1) exceeds the bytes
  // left: no count read from the file can make the reader allocate or loop more than the input justifies.
  size_t count(const char* what, size_t minBytesEach = 1);

  std::span<const uint8_t> take(size_t n) {
    need(n);
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }
  void skip(size_t n) {
    need(n);
    pos_ += n;
  }
  // A cursor over the next `n` bytes; this one moves past them.
  ByteCursor split(size_t n) {
    uint64_t at = fileOffset();
    return ByteCursor(take(n), at);
  }
  void seek(size_t position);

  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void failAt(uint64_t fileOffset, const std::string& what) const;

 private:
  void need(size_t n) const {
    if (n > remaining()) failShort(n);
  }
  [[noreturn]] void failShort(size_t n) const;
  uint64_t varintSlow();

  std::span<const uint8_t> bytes_;
  uint64_t base_;
  size_t pos_ = 0;
};

}  // namespace jfrbpf::jfr::reader
