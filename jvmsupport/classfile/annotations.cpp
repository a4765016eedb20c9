#include "jvmsupport/classfile/annotations.h"

namespace jfrbpf::classfile {
namespace {

// Nesting deeper than this is hostile input, not Java: it would only exhaust the native stack.
constexpr int kMaxNesting = 32;

uint16_t skipAnnotation(Reader& reader, int depth);

void skipElementValue(Reader& reader, int depth) {
  if (depth > kMaxNesting) throw ClassFileError("annotation values nested too deeply");
  uint8_t tag = reader.u1();
  switch (tag) {
    case 'B':
    case 'C':
    case 'D':
    case 'F':
    case 'I':
    case 'J':
    case 'S':
    case 'Z':
    case 's':
    case 'c':
      reader.skip(2);
      return;
    case 'e':
      reader.skip(4);
      return;
    case '@':
      skipAnnotation(reader, depth + 1);
      return;
    case '[': {
      uint16_t count = reader.u2();
      for (uint16_t i = 0; i < count; ++i) skipElementValue(reader, depth + 1);
      return;
    }
    default:
      throw ClassFileError("invalid annotation element tag " + std::to_string(tag));
  }
}

// Skips one annotation structure and returns its type_index.
uint16_t skipAnnotation(Reader& reader, int depth) {
  uint16_t typeIndex = reader.u2();
  uint16_t pairs = reader.u2();
  for (uint16_t i = 0; i < pairs; ++i) {
    reader.skip(2);  // element_name_index
    skipElementValue(reader, depth);
  }
  return typeIndex;
}

void patchU2(std::vector<uint8_t>& bytes, size_t at, uint32_t value) {
  if (value > 0xffff) throw ClassFileError("type annotation offset out of range");
  bytes[at] = static_cast<uint8_t>(value >> 8);
  bytes[at + 1] = static_cast<uint8_t>(value);
}

}  // namespace

std::vector<std::string> annotationTypes(std::span<const uint8_t> info, const ConstantPool& pool) {
  Reader reader(info);
  uint16_t count = reader.u2();
  std::vector<std::string> types;
  types.reserve(count);
  for (uint16_t i = 0; i < count; ++i) types.emplace_back(pool.utf8(skipAnnotation(reader, 0)));
  return types;
}

std::vector<uint8_t> remapCodeTypeAnnotations(std::span<const uint8_t> info, const OffsetMap& offsets) {
  std::vector<uint8_t> result(info.begin(), info.end());
  Reader reader(info);
  uint16_t count = reader.u2();
  for (uint16_t i = 0; i < count; ++i) {
    uint8_t targetType = reader.u1();
    if (targetType == 0x40 || targetType == 0x41) {  // local_variable, resource_variable
      uint16_t entries = reader.u2();
      for (uint16_t e = 0; e < entries; ++e) {
        size_t at = reader.position();
        uint16_t start = reader.u2();
        uint16_t length = reader.u2();
        reader.skip(2);  // index
        uint32_t newStart = offsets.scopeStart(start);
        patchU2(result, at, newStart);
        patchU2(result, at + 2, offsets.target(uint32_t{start} + length) - newStart);
      }
    } else if (targetType == 0x42) {  // exception_parameter: an exception table index, which stays valid
      reader.skip(2);
    } else if (targetType >= 0x43 && targetType <= 0x4b) {  // instanceof/new/method refs/casts/type args
      size_t at = reader.position();
      patchU2(result, at, offsets.instruction(reader.u2()));
      if (targetType >= 0x47) reader.skip(1);  // type_argument_index
    } else {
      throw ClassFileError("type annotation target " + std::to_string(targetType) + " cannot appear in code");
    }
    uint8_t pathLength = reader.u1();
    reader.skip(2u * pathLength);
    skipAnnotation(reader, 0);
  }
  if (reader.remaining() != 0) throw ClassFileError("extra bytes after type annotations");
  return result;
}

}  // namespace jfrbpf::classfile
