#pragma once
// Builds hsperfdata files (format 2) in either byte order, for parser tests and fuzz seeds.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace jfrbpf::discovery_test {

class PerfDataBuilder {
 public:
  explicit PerfDataBuilder(bool bigEndian = false) : bigEndian_(bigEndian) {}

  // A byte-vector counter holding `value` and a NUL, padded to `capacity` bytes (at least that).
  PerfDataBuilder& text(const std::string& name, const std::string& value, size_t capacity = 0) {
    std::vector<uint8_t> data(value.begin(), value.end());
    data.resize(std::max(capacity, value.size() + 1), 0);
    return entry(name, 'B', static_cast<int32_t>(data.size()), data);
  }
  PerfDataBuilder& number(const std::string& name, int64_t value) {
    std::vector<uint8_t> data(8);
    put(data, 0, static_cast<uint64_t>(value), 8);
    return entry(name, 'J', 0, data);
  }
  PerfDataBuilder& accessible(bool value) {
    accessible_ = value;
    return *this;
  }

  std::vector<uint8_t> build() const {
    constexpr size_t kPrologue = 32;
    std::vector<uint8_t> file(kPrologue);
    file[0] = 0xca, file[1] = 0xfe, file[2] = 0xc0, file[3] = 0xc0;
    file[4] = bigEndian_ ? 0 : 1;
    file[5] = 2;  // major
    file[6] = 0;  // minor
    file[7] = accessible_ ? 1 : 0;
    for (const auto& e : entries_) file.insert(file.end(), e.begin(), e.end());
    put(file, 8, file.size(), 4);           // used
    put(file, 24, kPrologue, 4);            // entry offset
    put(file, 28, entries_.size(), 4);      // entry count
    return file;
  }

 private:
  PerfDataBuilder& entry(const std::string& name, char type, int32_t vectorLength, const std::vector<uint8_t>& data) {
    constexpr size_t kHeader = 20;
    size_t nameOffset = kHeader;
    size_t dataOffset = (nameOffset + name.size() + 1 + 7) & ~size_t{7};
    std::vector<uint8_t> e(dataOffset + data.size());
    std::memcpy(e.data() + nameOffset, name.data(), name.size());
    std::memcpy(e.data() + dataOffset, data.data(), data.size());
    put(e, 0, e.size(), 4);
    put(e, 4, nameOffset, 4);
    put(e, 8, static_cast<uint32_t>(vectorLength), 4);
    e[12] = static_cast<uint8_t>(type);
    e[14] = type == 'B' ? 5 : 1;  // units: string / none
    e[15] = 1;                    // variability: constant
    put(e, 16, dataOffset, 4);
    entries_.push_back(std::move(e));
    return *this;
  }
  void put(std::vector<uint8_t>& bytes, size_t offset, uint64_t value, size_t width) const {
    for (size_t i = 0; i < width; ++i) {
      bytes[offset + (bigEndian_ ? width - 1 - i : i)] = static_cast<uint8_t>(value >> (8 * i));
    }
  }

  bool bigEndian_;
  bool accessible_ = true;
  std::vector<std::vector<uint8_t>> entries_;
};

}  // namespace jfrbpf::discovery_test
