#pragma once
// Builds hsperfdata images in HotSpot's layout (prologue + entries), for the parser's tests and fuzz seeds.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::attach::test {

class PerfDataBuilder {
 public:
  explicit PerfDataBuilder(bool bigEndian = false) : bigEndian_(bigEndian), bytes_(32, 0) {
    const uint8_t magic[4] = {0xca, 0xfe, 0xc0, 0xc0};
    for (int i = 0; i < 4; ++i) bytes_[i] = magic[i];
    bytes_[4] = bigEndian ? 0 : 1;
    bytes_[5] = 2;  // major version
    bytes_[7] = 1;  // accessible
  }

  PerfDataBuilder& addString(std::string_view name, std::string_view value, size_t vectorLength = 0) {
    if (vectorLength == 0) vectorLength = value.size() + 1;
    std::vector<uint8_t> data(vectorLength, 0);
    for (size_t i = 0; i < value.size() && i < vectorLength; ++i) data[i] = static_cast<uint8_t>(value[i]);
    return addEntry(name, 'B', static_cast<int32_t>(vectorLength), data);
  }

  PerfDataBuilder& addLong(std::string_view name, int64_t value) {
    std::vector<uint8_t> data(8);
    for (int i = 0; i < 8; ++i) {
      uint8_t byte = static_cast<uint8_t>(static_cast<uint64_t>(value) >> (8 * i));
      data[bigEndian_ ? 7 - i : i] = byte;
    }
    return addEntry(name, 'J', 0, data);
  }

  std::vector<uint8_t> build() const {
    std::vector<uint8_t> out = bytes_;
    put32(out, 8, static_cast<int32_t>(out.size()));  // used
    put32(out, 24, 32);                               // entry offset
    put32(out, 28, entries_);
    return out;
  }

 private:
  PerfDataBuilder& addEntry(std::string_view name, char type, int32_t vectorLength, const std::vector<uint8_t>& data) {
    constexpr size_t kHeader = 20;
    size_t dataOffset = (kHeader + name.size() + 1 + 7) & ~size_t{7};
    size_t length = (dataOffset + data.size() + 7) & ~size_t{7};
    std::vector<uint8_t> entry(length, 0);
    put32(entry, 0, static_cast<int32_t>(length));
    put32(entry, 4, static_cast<int32_t>(kHeader));
    put32(entry, 8, vectorLength);
    entry[12] = static_cast<uint8_t>(type);
    put32(entry, 16, static_cast<int32_t>(dataOffset));
    for (size_t i = 0; i < name.size(); ++i) entry[kHeader + i] = static_cast<uint8_t>(name[i]);
    for (size_t i = 0; i < data.size(); ++i) entry[dataOffset + i] = data[i];
    bytes_.insert(bytes_.end(), entry.begin(), entry.end());
    ++entries_;
    return *this;
  }

  void put32(std::vector<uint8_t>& out, size_t offset, int32_t value) const {
    for (int i = 0; i < 4; ++i) {
      uint8_t byte = static_cast<uint8_t>(static_cast<uint32_t>(value) >> (8 * i));
      out[offset + (bigEndian_ ? 3 - i : i)] = byte;
    }
  }

  bool bigEndian_;
  std::vector<uint8_t> bytes_;
  int32_t entries_ = 0;
};

}  // namespace jfrbpf::attach::test
