#include "userspace/attach/perf_data.h"

#include <algorithm>
#include <cstring>

namespace jfrbpf::attach {
namespace {

// Layout of HotSpot's PerfDataPrologue and PerfDataEntry (perfMemory.hpp), format version 2.
constexpr uint8_t kMagic[4] = {0xca, 0xfe, 0xc0, 0xc0};
constexpr size_t kPrologueSize = 32;
constexpr size_t kEntryHeaderSize = 20;
constexpr uint8_t kSupportedMajorVersion = 2;
constexpr char kTypeLong = 'J';
constexpr char kTypeByte = 'B';
constexpr uint32_t kMaxEntries = 1 << 16;

class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, bool bigEndian) : bytes_(bytes), bigEndian_(bigEndian) {}

  std::optional<uint64_t> unsignedAt(size_t offset, size_t width) const {
    if (offset > bytes_.size() || width > bytes_.size() - offset) return std::nullopt;
    uint64_t value = 0;
    for (size_t i = 0; i < width; ++i) {
      size_t index = bigEndian_ ? i : width - 1 - i;
      value = (value << 8) | bytes_[offset + index];
    }
    return value;
  }
  std::optional<int32_t> int32At(size_t offset) const {
    auto v = unsignedAt(offset, 4);
    if (!v) return std::nullopt;
    return static_cast<int32_t>(static_cast<uint32_t>(*v));
  }

 private:
  std::span<const uint8_t> bytes_;
  bool bigEndian_;
};

// Text in [begin, end) up to its first NUL; nullopt if the range is outside the entry.
std::optional<std::string> textIn(std::span<const uint8_t> entry, int64_t begin, int64_t end) {
  if (begin < 0 || end < begin || static_cast<uint64_t>(end) > entry.size()) return std::nullopt;
  const uint8_t* first = entry.data() + begin;
  const uint8_t* last = entry.data() + end;
  const uint8_t* nul = std::find(first, last, uint8_t{0});
  return std::string(reinterpret_cast<const char*>(first), static_cast<size_t>(nul - first));
}

}  // namespace

const std::string* PerfData::string(std::string_view name) const {
  auto it = strings.find(name);
  return it == strings.end() ? nullptr : &it->second;
}

std::optional<PerfData> parsePerfData(std::span<const uint8_t> bytes) {
  if (bytes.size() < kPrologueSize || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  const bool bigEndian = bytes[4] == 0;
  if (bytes[5] != kSupportedMajorVersion) return std::nullopt;
  Reader prologue(bytes, bigEndian);
  auto used = prologue.int32At(8);
  auto entryOffset = prologue.int32At(24);
  auto entryCount = prologue.int32At(28);
  if (!used || !entryOffset || !entryCount || *entryOffset < 0 || *entryCount < 0) return std::nullopt;
  // Only the bytes the JVM says it has written are meaningful.
  std::span<const uint8_t> valid = bytes.first(std::min(bytes.size(), static_cast<size_t>(std::max(*used, 0))));

  PerfData data;
  size_t offset = static_cast<size_t>(*entryOffset);
  uint32_t count = std::min(static_cast<uint32_t>(*entryCount), kMaxEntries);
  for (uint32_t i = 0; i < count; ++i) {
    Reader header(valid, bigEndian);
    auto length = header.int32At(offset);
    auto nameOffset = header.int32At(offset + 4);
    auto vectorLength = header.int32At(offset + 8);
    auto type = header.unsignedAt(offset + 12, 1);
    auto dataOffset = header.int32At(offset + 16);
    if (!length || !nameOffset || !vectorLength || !type || !dataOffset) break;
    if (*length < static_cast<int32_t>(kEntryHeaderSize) || static_cast<size_t>(*length) > valid.size() - offset) break;
    std::span<const uint8_t> entry = valid.subspan(offset, static_cast<size_t>(*length));
    auto name = textIn(entry, *nameOffset, *length);
    if (!name) break;
    if (*type == static_cast<uint8_t>(kTypeByte) && *vectorLength > 0) {
      auto value = textIn(entry, *dataOffset, int64_t{*dataOffset} + *vectorLength);
      if (value) data.strings.insert_or_assign(std::move(*name), std::move(*value));
    } else if (*type == static_cast<uint8_t>(kTypeLong) && *vectorLength == 0) {
      Reader entryReader(entry, bigEndian);
      if (*dataOffset >= 0) {
        if (auto value = entryReader.unsignedAt(static_cast<size_t>(*dataOffset), 8)) {
          data.longs.insert_or_assign(std::move(*name), static_cast<int64_t>(*value));
        }
      }
    }
    offset += static_cast<size_t>(*length);
  }
  return data;
}

}  // namespace jfrbpf::attach
