#include "jvmsupport/classfile/class_model.h"

namespace jfrbpf::classfile {
namespace {

constexpr uint32_t kMagic = 0xCAFEBABE;

std::vector<Attribute> readAttributes(Reader& reader) {
  uint16_t count = reader.u2();
  std::vector<Attribute> attributes;
  attributes.reserve(count);
  for (uint16_t i = 0; i < count; ++i) {
    uint16_t nameIndex = reader.u2();
    uint32_t length = reader.u4();
    attributes.push_back(Attribute{nameIndex, reader.take(length)});
  }
  return attributes;
}

Member readMember(Reader& reader) {
  Member member;
  member.accessFlags = reader.u2();
  member.nameIndex = reader.u2();
  member.descriptorIndex = reader.u2();
  member.attributes = readAttributes(reader);
  return member;
}

}  // namespace

std::optional<Attribute> ClassModel::find(const std::vector<Attribute>& list, std::string_view attributeName) const {
  for (const Attribute& attribute : list) {
    if (pool.tagAt(attribute.nameIndex) == tag::kUtf8 && pool.utf8(attribute.nameIndex) == attributeName) {
      return attribute;
    }
  }
  return std::nullopt;
}

ClassModel parseClass(std::span<const uint8_t> bytes) {
  Reader reader(bytes);
  if (reader.u4() != kMagic) throw ClassFileError("not a class file (bad magic)");
  ClassModel model;
  model.minorVersion = reader.u2();
  model.majorVersion = reader.u2();
  model.pool = ConstantPool(reader);
  size_t headerStart = reader.position();
  model.accessFlags = reader.u2();
  model.thisClass = reader.u2();
  model.superClass = reader.u2();
  model.pool.className(model.thisClass);  // validates this_class
  uint16_t interfaces = reader.u2();
  reader.skip(2u * interfaces);
  uint16_t fields = reader.u2();
  for (uint16_t i = 0; i < fields; ++i) readMember(reader);
  model.headerAndFields = bytes.subspan(headerStart, reader.position() - headerStart);
  uint16_t methods = reader.u2();
  model.methods.reserve(methods);
  for (uint16_t i = 0; i < methods; ++i) {
    Member method = readMember(reader);
    model.pool.utf8(method.nameIndex);
    model.pool.utf8(method.descriptorIndex);
    model.methods.push_back(std::move(method));
  }
  size_t attributesStart = reader.position();
  model.attributes = readAttributes(reader);
  model.attributesBytes = bytes.subspan(attributesStart, reader.position() - attributesStart);
  if (reader.remaining() != 0) throw ClassFileError("extra bytes after the end of the class file");
  return model;
}

CodeAttribute parseCode(std::span<const uint8_t> info) {
  Reader reader(info);
  CodeAttribute code;
  code.maxStack = reader.u2();
  code.maxLocals = reader.u2();
  uint32_t length = reader.u4();
  if (length == 0 || length > 0xffff) throw ClassFileError("invalid code length " + std::to_string(length));
  code.code = reader.take(length);
  uint16_t handlers = reader.u2();
  code.exceptionTable.reserve(handlers);
  for (uint16_t i = 0; i < handlers; ++i) {
    ExceptionEntry entry;
    entry.startPc = reader.u2();
    entry.endPc = reader.u2();
    entry.handlerPc = reader.u2();
    entry.catchType = reader.u2();
    code.exceptionTable.push_back(entry);
  }
  code.attributes = readAttributes(reader);
  if (reader.remaining() != 0) throw ClassFileError("extra bytes after the Code attribute");
  return code;
}

}  // namespace jfrbpf::classfile
