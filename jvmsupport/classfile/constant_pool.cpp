#include "jvmsupport/classfile/constant_pool.h"


namespace jfrbpf::classfile {
namespace {

// Payload bytes after the tag for fixed-size entries; Utf8 is variable.
size_t fixedPayloadSize(uint8_t entryTag) {
  switch (entryTag) {
    case tag::kInteger:
    case tag::kFloat:
    case tag::kFieldref:
    case tag::kMethodref:
    case tag::kInterfaceMethodref:
    case tag::kNameAndType:
    case tag::kDynamic:
    case tag::kInvokeDynamic:
      return 4;
    case tag::kLong:
    case tag::kDouble:
      return 8;
    case tag::kClass:
    case tag::kString:
    case tag::kMethodType:
    case tag::kModule:
    case tag::kPackage:
      return 2;
    case tag::kMethodHandle:
      return 3;
    default:
      throw ClassFileError("unknown constant pool tag " + std::to_string(entryTag));
  }
}

std::string_view asText(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

uint16_t u2At(std::span<const uint8_t> bytes, size_t at) { return static_cast<uint16_t>(bytes[at] << 8 | bytes[at + 1]); }

}  // namespace

ConstantPool::ConstantPool(Reader& reader) : input_(reader.bytes()) {
  uint16_t count = reader.u2();
  if (count == 0) throw ClassFileError("constant pool count is zero");
  entries_.resize(count);
  for (uint32_t index = 1; index < count; ++index) {
    Entry& entry = entries_[index];
    entry.tag = reader.u1();
    size_t length;
    if (entry.tag == tag::kUtf8) {
      length = reader.u2();
    } else {
      length = fixedPayloadSize(entry.tag);
    }
    entry.offset = static_cast<uint32_t>(reader.position());
    entry.length = static_cast<uint32_t>(length);
    reader.skip(length);
    if (entry.tag == tag::kLong || entry.tag == tag::kDouble) {
      if (++index >= count) throw ClassFileError("long/double constant in the last constant pool slot");
    }
  }
}

std::span<const uint8_t> ConstantPool::payload(const Entry& entry) const {
  const std::span<const uint8_t> base = entry.added ? std::span<const uint8_t>(added_) : input_;
  return base.subspan(entry.offset, entry.length);
}

uint8_t ConstantPool::tagAt(uint32_t index) const { return index < entries_.size() ? entries_[index].tag : 0; }

const ConstantPool::Entry& ConstantPool::entryOf(uint32_t index, uint8_t expectedTag) const {
  if (tagAt(index) != expectedTag) {
    throw ClassFileError("constant pool entry " + std::to_string(index) + " is not of the expected kind");
  }
  return entries_[index];
}

std::string_view ConstantPool::utf8(uint32_t index) const { return asText(payload(entryOf(index, tag::kUtf8))); }

std::string_view ConstantPool::className(uint32_t classIndex) const {
  return utf8(u2At(payload(entryOf(classIndex, tag::kClass)), 0));
}

ConstantPool::NameAndType ConstantPool::nameAndType(uint32_t index) const {
  std::span<const uint8_t> bytes = payload(entryOf(index, tag::kNameAndType));
  return {utf8(u2At(bytes, 0)), utf8(u2At(bytes, 2))};
}

ConstantPool::MemberRef ConstantPool::memberRef(uint32_t index) const {
  uint8_t entryTag = tagAt(index);
  if (entryTag != tag::kFieldref && entryTag != tag::kMethodref && entryTag != tag::kInterfaceMethodref) {
    throw ClassFileError("constant pool entry " + std::to_string(index) + " is not a member reference");
  }
  std::span<const uint8_t> bytes = payload(entries_[index]);
  NameAndType nat = nameAndType(u2At(bytes, 2));
  return {className(u2At(bytes, 0)), nat.name, nat.descriptor};
}

std::string_view ConstantPool::dynamicDescriptor(uint32_t index) const {
  uint8_t entryTag = tagAt(index);
  if (entryTag != tag::kDynamic && entryTag != tag::kInvokeDynamic) {
    throw ClassFileError("constant pool entry " + std::to_string(index) + " is not a dynamic constant");
  }
  return nameAndType(u2At(payload(entries_[index]), 2)).descriptor;
}

int32_t ConstantPool::integer(uint32_t index) const {
  std::span<const uint8_t> bytes = payload(entryOf(index, tag::kInteger));
  return static_cast<int32_t>(static_cast<uint32_t>(u2At(bytes, 0)) << 16 | u2At(bytes, 2));
}

namespace {
std::string indexKey(uint8_t entryTag, std::span<const uint8_t> bytes) {
  std::string key(1, static_cast<char>(entryTag));
  key.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return key;
}
}  // namespace

uint16_t ConstantPool::find(uint8_t entryTag, std::span<const uint8_t> bytes) const {
  if (index_.empty()) {
    for (size_t index = entries_.size(); index-- > 1;) {  // backwards, so the first duplicate wins
      const Entry& entry = entries_[index];
      if (entry.tag != 0) index_[indexKey(entry.tag, payload(entry))] = static_cast<uint16_t>(index);
    }
  }
  auto found = index_.find(indexKey(entryTag, bytes));
  return found == index_.end() ? 0 : found->second;
}

uint16_t ConstantPool::append(uint8_t entryTag, std::span<const uint8_t> bytes) {
  if (uint16_t existing = find(entryTag, bytes)) return existing;
  if (entries_.size() >= 0xffff) throw ClassFileError("constant pool is full");
  Entry entry{entryTag, true, static_cast<uint32_t>(added_.size()), static_cast<uint32_t>(bytes.size())};
  std::vector<uint8_t> copy(bytes.begin(), bytes.end());  // `bytes` may view added_ itself
  added_.insert(added_.end(), copy.begin(), copy.end());
  entries_.push_back(entry);
  uint16_t index = static_cast<uint16_t>(entries_.size() - 1);
  index_[indexKey(entryTag, copy)] = index;
  return index;
}

uint16_t ConstantPool::addUtf8(std::string_view text) {
  if (text.size() > 0xffff) throw ClassFileError("constant too long");
  return append(tag::kUtf8, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

uint16_t ConstantPool::addClass(std::string_view internalName) {
  uint16_t name = addUtf8(internalName);
  const uint8_t bytes[] = {static_cast<uint8_t>(name >> 8), static_cast<uint8_t>(name)};
  return append(tag::kClass, bytes);
}

uint16_t ConstantPool::addNameAndType(std::string_view name, std::string_view descriptor) {
  uint16_t nameIndex = addUtf8(name);
  uint16_t descriptorIndex = addUtf8(descriptor);
  const uint8_t bytes[] = {static_cast<uint8_t>(nameIndex >> 8), static_cast<uint8_t>(nameIndex),
                           static_cast<uint8_t>(descriptorIndex >> 8), static_cast<uint8_t>(descriptorIndex)};
  return append(tag::kNameAndType, bytes);
}

uint16_t ConstantPool::addMethodref(std::string_view owner, std::string_view name, std::string_view descriptor) {
  uint16_t classIndex = addClass(owner);
  uint16_t natIndex = addNameAndType(name, descriptor);
  const uint8_t bytes[] = {static_cast<uint8_t>(classIndex >> 8), static_cast<uint8_t>(classIndex),
                           static_cast<uint8_t>(natIndex >> 8), static_cast<uint8_t>(natIndex)};
  return append(tag::kMethodref, bytes);
}

uint16_t ConstantPool::addInteger(int32_t value) {
  uint32_t bits = static_cast<uint32_t>(value);
  const uint8_t bytes[] = {static_cast<uint8_t>(bits >> 24), static_cast<uint8_t>(bits >> 16),
                           static_cast<uint8_t>(bits >> 8), static_cast<uint8_t>(bits)};
  return append(tag::kInteger, bytes);
}

void ConstantPool::write(Writer& out) const {
  out.u2(count());
  for (const Entry& entry : entries_) {
    if (entry.tag == 0) continue;  // index 0 and the second slot of a long/double
    out.u1(entry.tag);
    if (entry.tag == tag::kUtf8) out.u2(entry.length);
    out.append(payload(entry));
  }
}

}  // namespace jfrbpf::classfile
