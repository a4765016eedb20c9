#pragma once
// Protocol Buffers' wire format, read field by field from bytes another process wrote: every length is
// checked against what is left, varints stop at 10 bytes, and groups (deprecated, never in OTel's messages)
// end the reading as malformed. Only what the OTel payloads need; unknown fields are skipped as the format
// allows.
#include <cstdint>
#include <span>
#include <string_view>

namespace jfrbpf::otel {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

struct ProtobufField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t value = 0;                  // kVarint, kFixed64, kFixed32
  std::span<const uint8_t> bytes;      // kLength: the field's bytes (a string, or an embedded message)

  std::string_view text() const { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }
};

class ProtobufReader {
 public:
  explicit ProtobufReader(std::span<const uint8_t> message) : rest_(message) {}

  // The next field into `field`; false at the end of the message, or when it is malformed (malformed() then).
  bool next(ProtobufField& field);
  bool malformed() const { return malformed_; }

 private:
  bool varint(uint64_t& value);
  bool fail() {
    malformed_ = true;
    return false;
  }

  std::span<const uint8_t> rest_;
  bool malformed_ = false;
};

}  // namespace jfrbpf::otel
