#include "userspace/otel/protobuf_reader.h"

#include <cstring>

namespace jfrbpf::otel {

bool ProtobufReader::varint(uint64_t& value) {
  value = 0;
  for (size_t i = 0; i < 10; ++i) {
    if (i >= rest_.size()) return fail();
    const uint8_t byte = rest_[i];
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      rest_ = rest_.subspan(i + 1);
      return true;
    }
  }
  return fail();  // more than 10 bytes: no 64-bit value
}

bool ProtobufReader::next(ProtobufField& field) {
  if (rest_.empty() || malformed_) return false;
  uint64_t key = 0;
  if (!varint(key)) return false;
  const uint64_t number = key >> 3;
  if (number == 0 || number > 0x1fffffff) return fail();
  field = ProtobufField{};
  field.number = static_cast<uint32_t>(number);
  switch (key & 7) {
    case 0:
      field.type = WireType::kVarint;
      return varint(field.value);
    case 1:
    case 5: {
      const size_t size = (key & 7) == 1 ? 8 : 4;
      if (rest_.size() < size) return fail();
      field.type = size == 8 ? WireType::kFixed64 : WireType::kFixed32;
      std::memcpy(&field.value, rest_.data(), size);  // little-endian, as the format is
      rest_ = rest_.subspan(size);
      return true;
    }
    case 2: {
      uint64_t length = 0;
      if (!varint(length)) return false;
      if (length > rest_.size()) return fail();
      field.type = WireType::kLength;
      field.bytes = rest_.first(static_cast<size_t>(length));
      rest_ = rest_.subspan(static_cast<size_t>(length));
      return true;
    }
    default:
      return fail();
  }
}

}  // namespace jfrbpf::otel
