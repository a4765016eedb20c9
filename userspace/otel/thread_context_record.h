#pragma once
// A thread's OpenTelemetry context record (OTEP 4947) as the sampler copied it into a record: the 28-byte
// header (trace id, span id, valid, trace flags, attributes' size, host-endian) and its attributes, entries of
// (key index u8, length u8, UTF-8 value). Every byte is the target's: decoding is bounded by the bytes given,
// and the attributes render with their values escaped.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::otel {

inline constexpr size_t kThreadContextHeaderBytes = 28;

struct ThreadContextRecord {
  uint64_t traceIdHi = 0;  // the W3C bytes 0..7 as a big-endian integer
  uint64_t traceIdLo = 0;  // bytes 8..15
  uint64_t spanId = 0;
  uint8_t traceFlags = 0;
  // (key index, value) in the order the record holds them, the last of a repeated key only (as the OTEP says).
  std::vector<std::pair<uint8_t, std::string_view>> attributes;
};

// Decodes `bytes` (a header, and as many attribute bytes as its size says); the attributes' views point into
// `bytes`. nullopt when they are shorter than the header says or the record is not valid. An entry cut short
// ends the attributes, as the OTEP says.
std::optional<ThreadContextRecord> decodeThreadContextRecord(std::span<const uint8_t> bytes);

// Appends "key=value, key=value" to `out`: keys named by `keyNames` (an index it lacks as "#index"); in
// values, '\' and ',' are escaped with '\', and control characters and invalid UTF-8 bytes as \xHH, so that
// the text reaches no terminal raw and splits back unambiguously.
void renderAttributes(const ThreadContextRecord& record, const std::vector<std::string>& keyNames, std::string& out);

// The trace id as 32 lowercase hex digits, and a span id as 16.
std::string traceIdHex(uint64_t hi, uint64_t lo);
std::string spanIdHex(uint64_t spanId);

}  // namespace jfrbpf::otel
