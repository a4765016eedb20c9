#include "formats/jfr/reader/string_encoding.h"


#include "formats/jfr/reader/byte_cursor.h"

namespace jfrbpf::jfr::reader {
namespace {

constexpr uint32_t kReplacement = 0xFFFD;

size_t encodeCodePoint(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = char(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = char(0xC0 | cp >> 6);
    out[1] = char(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = char(0xE0 | cp >> 12);
    out[1] = char(0x80 | ((cp >> 6) & 0x3F));
    out[2] = char(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = char(0xF0 | cp >> 18);
  out[1] = char(0x80 | ((cp >> 12) & 0x3F));
  out[2] = char(0x80 | ((cp >> 6) & 0x3F));
  out[3] = char(0x80 | (cp & 0x3F));
  return 4;
}

bool isHighSurrogate(uint32_t unit) { return unit >= 0xD800 && unit <= 0xDBFF; }
bool isLowSurrogate(uint32_t unit) { return unit >= 0xDC00 && unit <= 0xDFFF; }

}  // namespace

size_t encodeUtf16Unit(uint16_t unit, char* out) {
  return encodeCodePoint(isHighSurrogate(unit) || isLowSurrogate(unit) ? kReplacement : unit, out);
}

size_t decodeCharArray(ByteCursor& in, size_t count, char* out) {
  size_t written = 0;
  uint32_t pendingHigh = 0;  // a high surrogate waiting for its low half
  for (size_t i = 0; i < count; ++i) {
    uint32_t unit = static_cast<uint16_t>(in.varint());  // Java reads a char as (char) of the varint
    if (pendingHigh) {
      if (isLowSurrogate(unit)) {
        written += encodeCodePoint(0x10000 + ((pendingHigh - 0xD800) << 10) + (unit - 0xDC00), out + written);
        pendingHigh = 0;
        continue;
      }
      written += encodeCodePoint(kReplacement, out + written);
      pendingHigh = 0;
    }
    if (isHighSurrogate(unit)) {
      pendingHigh = unit;
    } else {
      written += encodeCodePoint(isLowSurrogate(unit) ? kReplacement : unit, out + written);
    }
  }
  if (pendingHigh) written += encodeCodePoint(kReplacement, out + written);
  return written;
}

size_t decodeLatin1(std::span<const uint8_t> bytes, char* out) {
  size_t written = 0;
  for (uint8_t b : bytes) written += encodeCodePoint(b, out + written);
  return written;
}

std::optional<std::string> readLiteralString(ByteCursor& in) {
  uint64_t start = in.fileOffset();
  auto encoding = static_cast<StringEncoding>(in.u8());
  switch (encoding) {
    case StringEncoding::kNull:
      return std::nullopt;
    case StringEncoding::kEmpty:
      return std::string();
    case StringEncoding::kUtf8: {
      auto bytes = in.take(in.count("UTF-8 string byte"));
      return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    case StringEncoding::kCharArray: {
      size_t count = in.count("char array string");
      std::string out(maxUtf8SizeOfUtf16(count), '\0');
      out.resize(decodeCharArray(in, count, out.data()));
      return out;
    }
    case StringEncoding::kLatin1: {
      auto bytes = in.take(in.count("Latin-1 string byte"));
      std::string out(maxUtf8SizeOfLatin1(bytes.size()), '\0');
      out.resize(decodeLatin1(bytes, out.data()));
      return out;
    }
    case StringEncoding::kPoolReference:
      in.failAt(start, "string encoding 2 (constant-pool reference) is not allowed here");
  }
  in.failAt(start, "unknown string encoding " + std::to_string(static_cast<int>(encoding)));
}

}  // namespace jfrbpf::jfr::reader
