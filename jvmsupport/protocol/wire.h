#pragma once
// Little-endian primitives of the agent -> loader channel. The writer appends to any sink with
// `bool append(const void*, size_t)` (the agent's malloc-backed buffer, a test's vector); the reader is
// bounds-checked and sticky: after the first failed read every later read fails too and returns zero, so a
// decoder reads a whole record and checks ok() once. Both sides run on little-endian x86_64/aarch64 hosts;
// the static_assert keeps a big-endian build from silently misreading.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>

namespace jfrbpf::protocol {

static_assert(std::endian::native == std::endian::little, "the channel encoding assumes a little-endian host");

template <typename Sink>
class WireWriter {
 public:
  explicit WireWriter(Sink& sink) : sink_(sink) {}

  bool ok() const { return ok_; }

  void u8(uint8_t v) { put(v); }
  void u16(uint16_t v) { put(v); }
  void u32(uint32_t v) { put(v); }
  void u64(uint64_t v) { put(v); }
  void i32(int32_t v) { put(v); }
  void i64(int64_t v) { put(v); }
  void bytes(const void* data, size_t size) {
    if (ok_ && size > 0) ok_ = sink_.append(data, size);
  }
  // u16 length, then the bytes; longer strings are cut at 65535 bytes (JVM symbols cannot be longer).
  void string(std::string_view s) {
    size_t n = s.size() > 0xffff ? 0xffff : s.size();
    u16(static_cast<uint16_t>(n));
    bytes(s.data(), n);
  }

 private:
  template <typename T>
  void put(T v) {
    static_assert(std::is_integral_v<T>);
    bytes(&v, sizeof v);
  }

  Sink& sink_;
  bool ok_ = true;
};

class WireReader {
 public:
  explicit WireReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  bool ok() const { return ok_; }
  bool atEnd() const { return ok_ && pos_ == bytes_.size(); }
  size_t remaining() const { return ok_ ? bytes_.size() - pos_ : 0; }
  void fail() { ok_ = false; }

  uint8_t u8() { return get<uint8_t>(); }
  uint16_t u16() { return get<uint16_t>(); }
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  int32_t i32() { return get<int32_t>(); }
  int64_t i64() { return get<int64_t>(); }

  std::span<const uint8_t> bytes(size_t size) {
    if (!require(size)) return {};
    std::span<const uint8_t> out = bytes_.subspan(pos_, size);
    pos_ += size;
    return out;
  }
  // `count` elements of `elementSize` bytes, without overflow in the multiplication.
  std::span<const uint8_t> array(size_t count, size_t elementSize) {
    if (elementSize != 0 && count > remaining() / elementSize) return fail(), std::span<const uint8_t>{};
    return bytes(count * elementSize);
  }
  std::string_view string() {
    uint16_t n = u16();
    std::span<const uint8_t> raw = bytes(n);
    return {reinterpret_cast<const char*>(raw.data()), raw.size()};
  }

 private:
  bool require(size_t n) {
    if (!ok_ || bytes_.size() - pos_ < n) return fail(), false;
    return true;
  }
  template <typename T>
  T get() {
    T v{};
    if (!require(sizeof v)) return v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// Reads a little-endian integer at `offset` of a span already known to be large enough.
template <typename T>
T loadLittleEndian(std::span<const uint8_t> bytes, size_t offset) {
  T v{};
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

}  // namespace jfrbpf::protocol
