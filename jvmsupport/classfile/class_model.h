#pragma once
// The structure of a class file as far as instrumentation needs it: the constant pool, the methods and
// their attributes are parsed; everything else is kept as verbatim byte ranges of the input.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "jvmsupport/classfile/constant_pool.h"

namespace jfrbpf::classfile {

inline constexpr uint16_t kAccStatic = 0x0008;

struct Attribute {
  uint16_t nameIndex = 0;
  std::span<const uint8_t> info;  // the attribute's payload, after attribute_length
};

struct Member {
  uint16_t accessFlags = 0;
  uint16_t nameIndex = 0;
  uint16_t descriptorIndex = 0;
  std::vector<Attribute> attributes;
};

struct ClassModel {
  uint16_t minorVersion = 0;
  uint16_t majorVersion = 0;
  ConstantPool pool;
  uint16_t accessFlags = 0;
  uint16_t thisClass = 0;
  uint16_t superClass = 0;
  // access_flags through the end of the fields, copied unchanged into the output.
  std::span<const uint8_t> headerAndFields;
  std::vector<Member> methods;
  std::vector<Attribute> attributes;
  std::span<const uint8_t> attributesBytes;  // attributes_count and the class attributes, verbatim

  std::string_view name() const { return pool.className(thisClass); }
  // The first attribute of `attributes` named `name`, if any.
  std::optional<Attribute> find(const std::vector<Attribute>& attributes, std::string_view name) const;
};

// Parses the whole class file; throws ClassFileError when it is malformed.
ClassModel parseClass(std::span<const uint8_t> bytes);

// The Code attribute's parts.
struct ExceptionEntry {
  uint16_t startPc = 0;
  uint16_t endPc = 0;
  uint16_t handlerPc = 0;
  uint16_t catchType = 0;
};

struct CodeAttribute {
  uint16_t maxStack = 0;
  uint16_t maxLocals = 0;
  std::span<const uint8_t> code;
  std::vector<ExceptionEntry> exceptionTable;
  std::vector<Attribute> attributes;
};

CodeAttribute parseCode(std::span<const uint8_t> info);

}  // namespace jfrbpf::classfile
