#include "userspace/otel/thread_context_record.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace jfrbpf::otel {
namespace {

uint64_t bigEndian64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

// The length of the UTF-8 character at the start of `s` (1..4), or 0 when it is not a valid one.
size_t utf8Length(std::string_view s) {
  const auto lead = static_cast<uint8_t>(s[0]);
  size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 0;
  if (length == 0 || length > s.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((static_cast<uint8_t>(s[i]) & 0xc0) != 0x80) return 0;
  }
  if (length == 2 && lead < 0xc2) return 0;  // overlong
  return length;
}

void appendEscaped(std::string_view value, std::string& out) {
  while (!value.empty()) {
    const auto c = static_cast<unsigned char>(value[0]);
    const size_t length = utf8Length(value);
    if (length == 1 && c >= 0x20 && c != 0x7f) {
      if (c == '\\' || c == ',') out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (length > 1) {
      out.append(value.substr(0, length));
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out.append(hex);
    }
    value.remove_prefix(std::max<size_t>(length, 1));
  }
}

}  // namespace

std::optional<ThreadContextRecord> decodeThreadContextRecord(std::span<const uint8_t> bytes) {
  if (bytes.size() < kThreadContextHeaderBytes || bytes[24] != 1) return std::nullopt;
  uint16_t size;
  std::memcpy(&size, &bytes[26], sizeof size);  // host-endian, as the writer stored it
  if (bytes.size() - kThreadContextHeaderBytes < size) return std::nullopt;
  ThreadContextRecord record;
  record.traceIdHi = bigEndian64(&bytes[0]);
  record.traceIdLo = bigEndian64(&bytes[8]);
  record.spanId = bigEndian64(&bytes[16]);
  record.traceFlags = bytes[25];
  std::span<const uint8_t> attrs = bytes.subspan(kThreadContextHeaderBytes, size);
  while (attrs.size() >= 2 && attrs.size() - 2 >= attrs[1]) {
    const uint8_t key = attrs[0];
    const std::string_view value(reinterpret_cast<const char*>(&attrs[2]), attrs[1]);
    std::erase_if(record.attributes, [key](const auto& attribute) { return attribute.first == key; });
    record.attributes.emplace_back(key, value);
    attrs = attrs.subspan(2 + attrs[1]);
  }
  return record;
}

void renderAttributes(const ThreadContextRecord& record, const std::vector<std::string>& keyNames, std::string& out) {
  for (const auto& [key, value] : record.attributes) {
    if (&key != &record.attributes.front().first) out.append(", ");
    if (key < keyNames.size()) {
      appendEscaped(keyNames[key], out);
    } else {
      out.append("#").append(std::to_string(key));
    }
    out.push_back('=');
    appendEscaped(value, out);
  }
}

std::string traceIdHex(uint64_t hi, uint64_t lo) {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(hi),
                static_cast<unsigned long long>(lo));
  return text;
}

std::string spanIdHex(uint64_t spanId) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(spanId));
  return text;
}

}  // namespace jfrbpf::otel
