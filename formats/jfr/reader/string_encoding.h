#pragma once
// JFR string encodings and their conversion to UTF-8 (internal to the reader).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace jfrbpf::jfr::reader {

class ByteCursor;

enum class StringEncoding : uint8_t {
  kNull = 0,
  kEmpty = 1,
  kPoolReference = 2,  // varint key into the java.lang.String pool
  kUtf8 = 3,           // varint byte length, bytes
  kCharArray = 4,      // varint count, one varint per UTF-16 unit
  kLatin1 = 5,         // varint length, bytes
};

// Upper bound of the UTF-8 size of `count` UTF-16 units (a surrogate pair, 2 units, needs 4 bytes).
inline size_t maxUtf8SizeOfUtf16(size_t count) { return count * 3; }
inline size_t maxUtf8SizeOfLatin1(size_t count) { return count * 2; }

// Reads `count` varint UTF-16 units and writes their UTF-8 form to `out`, which has room for
// maxUtf8SizeOfUtf16(count) bytes. Unpaired surrogates become U+FFFD. Returns the bytes written.
size_t decodeCharArray(ByteCursor& in, size_t count, char* out);
// Writes the UTF-8 form of Latin-1 `bytes` to `out` (room for maxUtf8SizeOfLatin1). Returns the bytes written.
size_t decodeLatin1(std::span<const uint8_t> bytes, char* out);
// UTF-8 of one UTF-16 unit read on its own (a Java char); a surrogate becomes U+FFFD. Returns bytes written (<= 3).
size_t encodeUtf16Unit(uint16_t unit, char* out);

// A string whose encoding must be literal (metadata strings): nullopt for the null string.
std::optional<std::string> readLiteralString(ByteCursor& in);

}  // namespace jfrbpf::jfr::reader
