#pragma once
// Field and method descriptors (JVMS 4.3) as verification types.
#include <optional>
#include <string_view>
#include <vector>

#include "jvmsupport/classfile/stack_map.h"

namespace jfrbpf::classfile {

// The verification type of the field type starting at descriptor[position]; advances position past it.
// boolean/byte/char/short/int are all kInteger. Throws ClassFileError when malformed.
VType parseFieldType(std::string_view descriptor, size_t& position);

VType fieldType(std::string_view descriptor);  // the whole descriptor must be one field type

struct MethodType {
  std::vector<VType> parameters;
  std::optional<VType> returned;  // nullopt for void
};
MethodType parseMethodDescriptor(std::string_view descriptor);

}  // namespace jfrbpf::classfile
