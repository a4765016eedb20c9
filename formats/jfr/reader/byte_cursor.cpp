#include "formats/jfr/reader/byte_cursor.h"

#include <bit>
#include <cstring>

namespace jfrbpf::jfr::reader {

FormatError::FormatError(uint64_t fileOffset, const std::string& what)
    : Error("offset " + std::to_string(fileOffset) + ": " + what) {}

uint16_t ByteCursor::u16be() {
  need(2);
  uint16_t v = uint16_t(bytes_[pos_] << 8 | bytes_[pos_ + 1]);
  pos_ += 2;
  return v;
}

uint32_t ByteCursor::u32be() {
  uint32_t hi = u16be();
  return hi << 16 | u16be();
}

uint64_t ByteCursor::u64be() {
  uint64_t hi = u32be();
  return hi << 32 | u32be();
}

float ByteCursor::f32be() { return std::bit_cast<float>(u32be()); }

double ByteCursor::f64be() { return std::bit_cast<double>(u64be()); }

uint64_t ByteCursor::varintSlow() {
  uint64_t start = fileOffset();
  uint64_t result = 0;
  for (int shift = 0; shift < 56; shift += 7) {
    if (atEnd()) failAt(start, "varint runs past the end of its record");
    uint8_t b = bytes_[pos_++];
    result |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return result;
  }
  if (atEnd()) failAt(start, "varint runs past the end of its record");
  return result | (uint64_t(bytes_[pos_++]) << 56);
}

size_t ByteCursor::count(const char* what, size_t minBytesEach) {
  uint64_t start = fileOffset();
  uint64_t n = varint();
  if (n > remaining() / minBytesEach) {
    failAt(start, std::string(what) + " count " + std::to_string(n) + " exceeds the " +
                      std::to_string(remaining()) + " bytes left in its record");
  }
  return static_cast<size_t>(n);
}

void ByteCursor::seek(size_t position) {
  if (position > bytes_.size()) {
    fail("position " + std::to_string(position) + " lies beyond the " + std::to_string(bytes_.size()) +
         " bytes available");
  }
  pos_ = position;
}

void ByteCursor::fail(const std::string& what) const { throw FormatError(fileOffset(), what); }

void ByteCursor::failAt(uint64_t fileOffset, const std::string& what) const {
  throw FormatError(fileOffset, what);
}

void ByteCursor::failShort(size_t n) const {
  fail("need " + std::to_string(n) + " bytes, only " + std::to_string(remaining()) + " left in the record");
}

}  // namespace jfrbpf::jfr::reader
