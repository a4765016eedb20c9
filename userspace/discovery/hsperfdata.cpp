#include "userspace/discovery/hsperfdata.h"

#include <algorithm>
#include <cstring>

namespace jfrbpf::discovery {
namespace {

constexpr uint8_t kMagic[4] = {0xca, 0xfe, 0xc0, 0xc0};
constexpr size_t kPrologueSize = 32;
constexpr size_t kEntryHeaderSize = 20;
constexpr uint8_t kFormatMajorVersion = 2;
constexpr uint8_t kTypeLong = 'J';
constexpr uint8_t kTypeByte = 'B';
// A JVM has a few hundred counters; the cap only bounds the work a crafted entry count can cause.
constexpr uint32_t kMaxEntries = 1u << 16;

// Fixed-width integers at checked offsets, in the file's byte order.
class Fields {
 public:
  Fields(std::span<const uint8_t> bytes, bool bigEndian) : bytes_(bytes), bigEndian_(bigEndian) {}

  std::optional<uint64_t> unsignedAt(size_t offset, size_t width) const {
    if (offset > bytes_.size() || width > bytes_.size() - offset) return std::nullopt;
    uint64_t value = 0;
    for (size_t i = 0; i < width; ++i) {
      value = (value << 8) | bytes_[offset + (bigEndian_ ? i : width - 1 - i)];
    }
    return value;
  }
  std::optional<int32_t> int32At(size_t offset) const {
    auto value = unsignedAt(offset, 4);
    if (!value) return std::nullopt;
    return static_cast<int32_t>(static_cast<uint32_t>(*value));
  }

 private:
  std::span<const uint8_t> bytes_;
  bool bigEndian_;
};

// The text in entry[begin, end) up to its first NUL; nullopt when the range leaves the entry.
std::optional<std::string> textIn(std::span<const uint8_t> entry, int64_t begin, int64_t end) {
  if (begin < 0 || end < begin || static_cast<uint64_t>(end) > entry.size()) return std::nullopt;
  const uint8_t* first = entry.data() + begin;
  const uint8_t* last = entry.data() + end;
  const uint8_t* nul = std::find(first, last, uint8_t{0});
  return std::string(reinterpret_cast<const char*>(first), static_cast<size_t>(nul - first));
}

std::nullopt_t fail(std::string* why, const char* reason) {
  if (why) *why = reason;
  return std::nullopt;
}

}  // namespace

const std::string* PerfData::string(std::string_view name) const {
  auto it = strings.find(name);
  return it == strings.end() ? nullptr : &it->second;
}

std::optional<int64_t> PerfData::number(std::string_view name) const {
  auto it = longs.find(name);
  if (it == longs.end()) return std::nullopt;
  return it->second;
}

std::optional<PerfData> parsePerfData(std::span<const uint8_t> bytes, std::string* why) {
  if (bytes.size() < kPrologueSize) return fail(why, "shorter than the hsperfdata prologue");
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return fail(why, "no hsperfdata magic");
  if (bytes[4] > 1) return fail(why, "unknown byte order");
  if (bytes[5] != kFormatMajorVersion) return fail(why, "unsupported hsperfdata format version");
  const bool bigEndian = bytes[4] == 0;
  Fields prologue(bytes, bigEndian);
  int32_t used = *prologue.int32At(8);
  int32_t entryOffset = *prologue.int32At(24);
  int32_t entryCount = *prologue.int32At(28);
  if (entryOffset < static_cast<int32_t>(kPrologueSize) || entryCount < 0) return fail(why, "corrupt hsperfdata prologue");

  PerfData data;
  data.majorVersion = bytes[5];
  data.minorVersion = bytes[6];
  data.accessible = bytes[7] != 0;
  // Only the bytes the JVM reports as written are meaningful; a shorter buffer is a truncated file.
  size_t validSize = bytes.size();
  if (used >= 0 && static_cast<size_t>(used) < validSize) validSize = static_cast<size_t>(used);
  if (used < 0 || static_cast<size_t>(used) > bytes.size()) data.complete = false;
  std::span<const uint8_t> valid = bytes.first(validSize);
  Fields fields(valid, bigEndian);

  size_t offset = static_cast<size_t>(entryOffset);
  const uint32_t count = std::min(static_cast<uint32_t>(entryCount), kMaxEntries);
  for (uint32_t i = 0; i < count; ++i) {
    auto length = fields.int32At(offset);
    auto nameOffset = fields.int32At(offset + 4);
    auto vectorLength = fields.int32At(offset + 8);
    auto type = fields.unsignedAt(offset + 12, 1);
    auto dataOffset = fields.int32At(offset + 16);
    if (!length || !nameOffset || !vectorLength || !type || !dataOffset ||
        *length < static_cast<int32_t>(kEntryHeaderSize) || static_cast<size_t>(*length) > valid.size() - offset) {
      data.complete = false;
      break;
    }
    std::span<const uint8_t> entry = valid.subspan(offset, static_cast<size_t>(*length));
    auto name = textIn(entry, *nameOffset, *length);
    if (!name || name->empty()) {
      data.complete = false;
      break;
    }
    Fields entryFields(entry, bigEndian);
    if (*type == kTypeByte && *vectorLength > 0) {
      if (auto value = textIn(entry, *dataOffset, int64_t{*dataOffset} + *vectorLength)) {
        data.strings.insert_or_assign(std::move(*name), std::move(*value));
      }
    } else if (*type == kTypeLong && *vectorLength == 0 && *dataOffset >= 0) {
      if (auto value = entryFields.unsignedAt(static_cast<size_t>(*dataOffset), 8)) {
        data.longs.insert_or_assign(std::move(*name), static_cast<int64_t>(*value));
      }
    }
    offset += static_cast<size_t>(*length);
  }
  if (count < static_cast<uint32_t>(entryCount)) data.complete = false;
  return data;
}

}  // namespace jfrbpf::discovery
