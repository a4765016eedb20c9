#include "jvmsupport/classfile/descriptors.h"

#include "jvmsupport/classfile/bytes.h"

namespace jfrbpf::classfile {
namespace {

// JVMS 4.4.1: at most 255 array dimensions.
constexpr size_t kMaxArrayDimensions = 255;

[[noreturn]] void malformed(std::string_view descriptor) {
  throw ClassFileError("malformed descriptor '" + std::string(descriptor.substr(0, 200)) + "'");
}

}  // namespace

VType parseFieldType(std::string_view descriptor, size_t& position) {
  size_t start = position;
  size_t dimensions = 0;
  while (position < descriptor.size() && descriptor[position] == '[') ++position, ++dimensions;
  if (dimensions > kMaxArrayDimensions || position >= descriptor.size()) malformed(descriptor);
  char c = descriptor[position++];
  if (c == 'L') {
    size_t end = descriptor.find(';', position);
    if (end == std::string_view::npos || end == position) malformed(descriptor);
    std::string_view className = descriptor.substr(position, end - position);
    position = end + 1;
    if (dimensions > 0) return VType::object(descriptor.substr(start, position - start));
    return VType::object(className);
  }
  if (c != 'B' && c != 'C' && c != 'D' && c != 'F' && c != 'I' && c != 'J' && c != 'S' && c != 'Z') {
    malformed(descriptor);
  }
  if (dimensions > 0) return VType::object(descriptor.substr(start, position - start));
  if (c == 'J') return VType::of(VType::kLong);
  if (c == 'D') return VType::of(VType::kDouble);
  if (c == 'F') return VType::of(VType::kFloat);
  return VType::of(VType::kInteger);
}

VType fieldType(std::string_view descriptor) {
  size_t position = 0;
  VType type = parseFieldType(descriptor, position);
  if (position != descriptor.size()) malformed(descriptor);
  return type;
}

MethodType parseMethodDescriptor(std::string_view descriptor) {
  if (descriptor.empty() || descriptor[0] != '(') malformed(descriptor);
  MethodType result;
  size_t position = 1;
  while (position < descriptor.size() && descriptor[position] != ')') {
    result.parameters.push_back(parseFieldType(descriptor, position));
  }
  if (position >= descriptor.size()) malformed(descriptor);
  ++position;  // ')'
  if (position < descriptor.size() && descriptor[position] == 'V') {
    if (position + 1 != descriptor.size()) malformed(descriptor);
    return result;
  }
  result.returned = parseFieldType(descriptor, position);
  if (position != descriptor.size()) malformed(descriptor);
  return result;
}

}  // namespace jfrbpf::classfile
