#pragma once
// Annotation attributes: the annotation types on a class or method (for the @Annotation filter target) and
// the bytecode offsets inside type annotations on code, which must follow the code when it moves.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "jvmsupport/classfile/constant_pool.h"
#include "jvmsupport/classfile/offset_map.h"

namespace jfrbpf::classfile {

// Type descriptors ("Lcom/foo/Ann;") of a Runtime(In)VisibleAnnotations attribute's annotations.
std::vector<std::string> annotationTypes(std::span<const uint8_t> info, const ConstantPool& pool);

// A copy of a Runtime(In)VisibleTypeAnnotations attribute of a Code attribute with every code offset
// (local variable ranges, instruction offsets) moved through `offsets`.
std::vector<uint8_t> remapCodeTypeAnnotations(std::span<const uint8_t> info, const OffsetMap& offsets);

}  // namespace jfrbpf::classfile
