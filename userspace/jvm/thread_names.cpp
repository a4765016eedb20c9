#include "userspace/jvm/thread_names.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

namespace jfrbpf::jvm {
namespace {

constexpr uint8_t kLatin1 = 0;
constexpr uint8_t kUtf16 = 1;
constexpr int32_t kMaxStringBytes = 1 << 20;  // a longer name is not a name: the bytes read are not a String
constexpr size_t kMaxByteArrayHeader = 64;     // a byte[]'s length and padding before its first element

// An object's first bytes, enough for the fields wanted: one read, not one per field.
class ObjectBytes {
 public:
  bool read(const unwind::MemoryReader& memory, uint64_t object, uint32_t size) {
    if (object == 0 || (object & 7) != 0 || size > sizeof bytes_) return false;
    size_ = size;
    return memory.read(object, {bytes_, size});
  }
  template <typename T>
  T at(uint32_t offset) const {
    T value{};
    if (offset + sizeof value <= size_) std::memcpy(&value, bytes_ + offset, sizeof value);
    return value;
  }
  uint64_t reference(const protocol::ContinuationLayout& layout, uint32_t offset) const {
    if (!layout.compressedOops) return at<uint64_t>(offset);
    const auto narrow = at<uint32_t>(offset);
    return narrow == 0 ? 0 : layout.narrowOopBase + (static_cast<uint64_t>(narrow) << (layout.narrowOopShift & 7));
  }

 private:
  uint8_t bytes_[256];
  uint32_t size_ = 0;
};

void appendUtf8(std::string& out, uint32_t codePoint) {
  if (codePoint < 0x80) {
    out += static_cast<char>(codePoint);
  } else if (codePoint < 0x800) {
    out += static_cast<char>(0xC0 | (codePoint >> 6));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else if (codePoint < 0x10000) {
    out += static_cast<char>(0xE0 | (codePoint >> 12));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (codePoint >> 18));
    out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  }
}

// UTF-16 in the JVM's (x86's) byte order; an unpaired surrogate becomes U+FFFD.
std::string utf16ToUtf8(const std::vector<uint8_t>& bytes) {
  std::string out;
  const size_t units = bytes.size() / 2;
  auto unit = [&](size_t i) { return static_cast<uint32_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8)); };
  for (size_t i = 0; i < units; i++) {
    uint32_t u = unit(i);
    if (u >= 0xD800 && u < 0xDC00 && i + 1 < units && unit(i + 1) >= 0xDC00 && unit(i + 1) < 0xE000) {
      appendUtf8(out, 0x10000 + ((u - 0xD800) << 10) + (unit(i + 1) - 0xDC00));
      i++;
    } else {
      appendUtf8(out, u >= 0xD800 && u < 0xE000 ? 0xFFFD : u);
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> readThreadName(const unwind::MemoryReader& memory, const protocol::ContinuationLayout& layout,
                                          uint64_t thread, int64_t javaThreadId) {
  if (layout.threadName == 0 || layout.threadTid == 0) return std::nullopt;
  ObjectBytes object, string;
  if (!object.read(memory, thread, std::max(layout.threadTid, layout.threadName) + 8) ||
      object.at<int64_t>(layout.threadTid) != javaThreadId) {
    return std::nullopt;
  }
  const uint64_t name = object.reference(layout, layout.threadName);
  if (!string.read(memory, name, std::max(layout.stringValue + 8, layout.stringCoder + 1))) return std::nullopt;
  const uint64_t value = string.reference(layout, layout.stringValue);
  const auto coder = string.at<uint8_t>(layout.stringCoder);
  if (value == 0 || (value & 7) != 0 || (coder != kLatin1 && coder != kUtf16)) return std::nullopt;
  // The length and the characters in one read where the array reaches that far, as nearly all do.
  const size_t bytesPerChar = coder == kUtf16 ? 2 : 1;
  // The model takes only plausible layouts; checked again here, in sizes that cannot wrap, for the reads
  // below are sized by it.
  const size_t header = layout.byteArrayBase;
  if (header > kMaxByteArrayHeader || header < size_t{layout.byteArrayLength} + sizeof(int32_t)) return std::nullopt;
  std::vector<uint8_t> array(header + kMaxThreadNameChars * bytesPerChar);
  const bool whole = memory.read(value, array);
  if (!whole && !memory.read(value, std::span(array).first(header))) return std::nullopt;
  int32_t length = -1;
  std::memcpy(&length, array.data() + layout.byteArrayLength, sizeof length);
  if (length < 0 || length > kMaxStringBytes || (coder == kUtf16 && length % 2 != 0)) return std::nullopt;
  const size_t taken = std::min<size_t>(static_cast<size_t>(length), kMaxThreadNameChars * bytesPerChar);
  std::vector<uint8_t> bytes(array.begin() + header, array.begin() + header + taken);
  if (!whole && !memory.read(value + header, bytes)) return std::nullopt;
  if (coder == kUtf16) return utf16ToUtf8(bytes);
  std::string out;
  for (uint8_t byte : bytes) appendUtf8(out, byte);
  return out;
}

}  // namespace jfrbpf::jvm
