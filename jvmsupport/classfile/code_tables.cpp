#include "jvmsupport/classfile/code_tables.h"

namespace jfrbpf::classfile {

std::vector<uint8_t> remapLineNumberTable(std::span<const uint8_t> info, const OffsetMap& offsets) {
  Reader reader(info);
  Writer out;
  uint16_t count = reader.u2();
  out.u2(count);
  for (uint16_t i = 0; i < count; ++i) {
    out.u2(offsets.scopeStart(reader.u2()));  // the entry code keeps the method's first line
    out.u2(reader.u2());                      // line_number
  }
  if (reader.remaining() != 0) throw ClassFileError("extra bytes after LineNumberTable");
  return out.take();
}

std::vector<uint8_t> remapLocalVariableTable(std::span<const uint8_t> info, const OffsetMap& offsets) {
  Reader reader(info);
  Writer out;
  uint16_t count = reader.u2();
  out.u2(count);
  for (uint16_t i = 0; i < count; ++i) {
    uint16_t start = reader.u2();
    uint16_t length = reader.u2();
    uint32_t newStart = offsets.scopeStart(start);
    uint32_t newEnd = offsets.target(uint32_t{start} + length);
    out.u2(newStart);
    out.u2(newEnd - newStart);
    out.u2(reader.u2());  // name_index
    out.u2(reader.u2());  // descriptor_index or signature_index
    out.u2(reader.u2());  // index
  }
  if (reader.remaining() != 0) throw ClassFileError("extra bytes after LocalVariableTable");
  return out.take();
}

}  // namespace jfrbpf::classfile
