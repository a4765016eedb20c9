#pragma once
// The Code attribute's offset tables that follow the code when it moves: LineNumberTable and
// LocalVariable(Type)Table. Each returns the new attribute payload; throws ClassFileError when an entry
// does not sit on an instruction boundary.
#include <cstdint>
#include <span>
#include <vector>

#include "jvmsupport/classfile/offset_map.h"

namespace jfrbpf::classfile {

std::vector<uint8_t> remapLineNumberTable(std::span<const uint8_t> info, const OffsetMap& offsets);

// LocalVariableTable and LocalVariableTypeTable share their layout.
std::vector<uint8_t> remapLocalVariableTable(std::span<const uint8_t> info, const OffsetMap& offsets);

}  // namespace jfrbpf::classfile
