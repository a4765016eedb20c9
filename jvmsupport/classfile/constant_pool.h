#pragma once
// A class file's constant pool: read in place from the input bytes, queried by index with tag checks, and
// extended with the few entries instrumentation needs (existing equal entries are reused).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jvmsupport/classfile/bytes.h"

namespace jfrbpf::classfile {

namespace tag {
inline constexpr uint8_t kUtf8 = 1, kInteger = 3, kFloat = 4, kLong = 5, kDouble = 6, kClass = 7, kString = 8,
                         kFieldref = 9, kMethodref = 10, kInterfaceMethodref = 11, kNameAndType = 12,
                         kMethodHandle = 15, kMethodType = 16, kDynamic = 17, kInvokeDynamic = 18, kModule = 19,
                         kPackage = 20;
}  // namespace tag

class ConstantPool {
 public:
  ConstantPool() = default;
  // Reads constant_pool_count and the entries; throws ClassFileError on malformed input.
  explicit ConstantPool(Reader& reader);

  // The class file's constant_pool_count: one more than the highest usable index.
  uint16_t count() const { return static_cast<uint16_t>(entries_.size()); }

  // The entry's tag, or 0 for index 0, out-of-range indices and the unusable slot after a long/double.
  uint8_t tagAt(uint32_t index) const;

  // Typed accessors; each throws ClassFileError when the index does not hold the expected kind.
  std::string_view utf8(uint32_t index) const;
  std::string_view className(uint32_t classIndex) const;  // internal name or array descriptor
  struct NameAndType {
    std::string_view name;
    std::string_view descriptor;
  };
  NameAndType nameAndType(uint32_t index) const;
  struct MemberRef {
    std::string_view owner;
    std::string_view name;
    std::string_view descriptor;
  };
  MemberRef memberRef(uint32_t index) const;  // Fieldref, Methodref or InterfaceMethodref
  // The field descriptor of a CONSTANT_Dynamic or the method descriptor of a CONSTANT_InvokeDynamic.
  std::string_view dynamicDescriptor(uint32_t index) const;
  int32_t integer(uint32_t index) const;

  // Find-or-append; throws ClassFileError when the pool would exceed 65535 entries.
  uint16_t addUtf8(std::string_view text);
  uint16_t addClass(std::string_view internalName);
  uint16_t addNameAndType(std::string_view name, std::string_view descriptor);
  uint16_t addMethodref(std::string_view owner, std::string_view name, std::string_view descriptor);
  uint16_t addInteger(int32_t value);

  void write(Writer& out) const;

 private:
  struct Entry {
    uint8_t tag = 0;
    bool added = false;   // payload lives in added_ rather than the input
    uint32_t offset = 0;  // of the payload (after the tag byte)
    uint32_t length = 0;
  };

  std::span<const uint8_t> payload(const Entry& entry) const;
  const Entry& entryOf(uint32_t index, uint8_t expectedTag) const;
  uint16_t find(uint8_t entryTag, std::span<const uint8_t> payload) const;
  uint16_t append(uint8_t entryTag, std::span<const uint8_t> payload);

  std::span<const uint8_t> input_;
  std::vector<Entry> entries_;  // index-aligned with the class file's numbering; entries_[0] unused
  std::vector<uint8_t> added_;
  // tag byte + payload -> first index holding it; built on the first lookup, kept up to date by append().
  mutable std::unordered_map<std::string, uint16_t> index_;
};

}  // namespace jfrbpf::classfile
