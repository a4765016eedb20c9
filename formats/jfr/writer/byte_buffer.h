#pragma once
// Growable byte buffer with JFR's wire encodings: LEB128 varints (9th byte carries the top 8 bits raw, no
// zig-zag), strings as encoding 0 (null) / 1 (empty) / 3 (UTF-8), big-endian floats, and records whose
// leading varint size counts itself.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

namespace jfrbpf::jfr {

inline constexpr size_t kMaxVarintBytes = 9;

// Encodes v at p, returns the byte after it. Negative longs arrive as their two's complement: 9 bytes.
inline uint8_t* putVarint(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    if (v < 0x80) {
      *p++ = static_cast<uint8_t>(v);
      return p;
    }
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

inline size_t varintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80 && n < kMaxVarintBytes) {
    v >>= 7;
    ++n;
  }
  return n;
}

// JFR ints are varints read as (int) readLong(); zero-extending like HotSpot keeps -1 at 5 bytes, not 9.
inline uint8_t* putInt(uint8_t* p, int32_t v) { return putVarint(p, static_cast<uint32_t>(v)); }
inline uint8_t* putLong(uint8_t* p, int64_t v) { return putVarint(p, static_cast<uint64_t>(v)); }
inline uint8_t* putBool(uint8_t* p, bool v) {
  *p++ = v ? 1 : 0;
  return p;
}

enum StringEncoding : uint8_t { kStringNull = 0, kStringEmpty = 1, kStringPooled = 2, kStringUtf8 = 3 };

// Total size of a record with this payload: the leading size varint counts its own bytes.
inline size_t recordSize(size_t payload) {
  size_t sizeBytes = 1;
  while (varintSize(payload + sizeBytes) != sizeBytes) ++sizeBytes;
  return payload + sizeBytes;
}

class ByteBuffer {
 public:
  ByteBuffer() = default;
  explicit ByteBuffer(size_t capacity) { reserve(capacity); }
  ByteBuffer(ByteBuffer&&) noexcept = default;
  ByteBuffer& operator=(ByteBuffer&&) noexcept = default;

  const uint8_t* data() const { return data_.get(); }
  uint8_t* data() { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void clear() { size_ = 0; }

  void reserve(size_t capacity) {
    if (capacity <= capacity_) return;
    auto grown = std::make_unique_for_overwrite<uint8_t[]>(capacity);
    if (size_ > 0) std::memcpy(grown.get(), data_.get(), size_);
    data_ = std::move(grown);
    capacity_ = capacity;
  }

  // Hot-path protocol: claim room for at most `n` bytes, write through the pointer, commit the end.
  uint8_t* claim(size_t n) {
    if (capacity_ - size_ < n) reserve(std::max(capacity_ * 2, size_ + n + 256));
    return data_.get() + size_;
  }
  void commit(uint8_t* end) { size_ = static_cast<size_t>(end - data_.get()); }

  void putVarint(uint64_t v) { commit(jfr::putVarint(claim(kMaxVarintBytes), v)); }
  void putInt(int32_t v) { commit(jfr::putInt(claim(kMaxVarintBytes), v)); }
  void putLong(int64_t v) { commit(jfr::putLong(claim(kMaxVarintBytes), v)); }
  void putBool(bool v) { commit(jfr::putBool(claim(1), v)); }
  void putByte(uint8_t v) {
    uint8_t* p = claim(1);
    *p = v;
    commit(p + 1);
  }
  void putBytes(const void* bytes, size_t n) {
    uint8_t* p = claim(n);
    if (n > 0) std::memcpy(p, bytes, n);
    commit(p + n);
  }
  void putFloat(float v) { putBigEndian(std::bit_cast<uint32_t>(v)); }
  void putDouble(double v) { putBigEndian(std::bit_cast<uint64_t>(v)); }
  void putBigEndian(uint16_t v) { putBigEndianBytes(v, 2); }
  void putBigEndian(uint32_t v) { putBigEndianBytes(v, 4); }
  void putBigEndian(uint64_t v) { putBigEndianBytes(v, 8); }

  // Encoding 3 (UTF-8, byte length), or 1 for "".
  void putString(std::string_view s) {
    if (s.empty()) {
      putByte(kStringEmpty);
      return;
    }
    uint8_t* p = claim(1 + kMaxVarintBytes + s.size());
    *p++ = kStringUtf8;
    p = jfr::putVarint(p, s.size());
    std::memcpy(p, s.data(), s.size());
    commit(p + s.size());
  }
  void putNullString() { putByte(kStringNull); }
  // JFR strings that may be absent: empty means null (a thread without a Java name, …).
  void putStringOrNull(std::string_view s) { s.empty() ? putNullString() : putString(s); }

  // A record is `size | payload` where size counts itself. beginRecord reserves one size byte (almost
  // every event fits in 127 bytes); endRecord patches it and widens it in place when the record is larger.
  size_t beginRecord() {
    size_t start = size_;
    commit(claim(1) + 1);
    return start;
  }
  void endRecord(size_t start) {
    size_t payload = size_ - start - 1;
    size_t sizeBytes = recordSize(payload) - payload;
    if (sizeBytes > 1) {
      claim(sizeBytes - 1);
      std::memmove(data_.get() + start + sizeBytes, data_.get() + start + 1, payload);
      size_ += sizeBytes - 1;
    }
    jfr::putVarint(data_.get() + start, payload + sizeBytes);
  }

 private:
  void putBigEndianBytes(uint64_t v, int n) {
    uint8_t* p = claim(8);
    for (int i = n - 1; i >= 0; --i) *p++ = static_cast<uint8_t>(v >> (8 * i));
    commit(p);
  }

  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Records of bounded size (no strings), encoded straight into the buffer with a one-byte size written last:
// the hot path's encoder. The caller guarantees the encoding stays within kMaxBytes.
class SmallRecord {
 public:
  static constexpr size_t kMaxBytes = 127;

  SmallRecord(ByteBuffer& out, uint64_t type) : out_(out), start_(out.claim(kMaxBytes)), p_(start_ + 1) {
    p_ = jfr::putVarint(p_, type);
  }
  SmallRecord& varint(uint64_t v) { return p_ = jfr::putVarint(p_, v), *this; }
  SmallRecord& longValue(int64_t v) { return p_ = jfr::putLong(p_, v), *this; }
  SmallRecord& intValue(int32_t v) { return p_ = jfr::putInt(p_, v), *this; }
  SmallRecord& boolean(bool v) { return p_ = jfr::putBool(p_, v), *this; }
  // A string of the chunk's java.lang.String pool (ConstantPools::markString); key 0 is null.
  SmallRecord& pooledString(uint64_t key) {
    if (key == 0) return *p_++ = kStringNull, *this;
    *p_++ = kStringPooled;
    return varint(key);
  }
  void commit() {
    *start_ = static_cast<uint8_t>(p_ - start_);
    out_.commit(p_);
  }

 private:
  ByteBuffer& out_;
  uint8_t* start_;
  uint8_t* p_;
};

}  // namespace jfrbpf::jfr
