#include "tests/classfile/downgrade.h"

#include "jvmsupport/classfile/class_model.h"

namespace jfrbpf::classfile::testing {
namespace {

void writeAttribute(Writer& out, uint16_t nameIndex, std::span<const uint8_t> info) {
  out.u2(nameIndex);
  out.u4(static_cast<uint32_t>(info.size()));
  out.append(info);
}

std::vector<uint8_t> codeWithoutStackMap(const ClassModel& model, std::span<const uint8_t> info) {
  CodeAttribute code = parseCode(info);
  Writer out;
  out.u2(code.maxStack);
  out.u2(code.maxLocals);
  out.u4(static_cast<uint32_t>(code.code.size()));
  out.append(code.code);
  out.u2(static_cast<uint32_t>(code.exceptionTable.size()));
  for (const ExceptionEntry& entry : code.exceptionTable) {
    out.u2(entry.startPc);
    out.u2(entry.endPc);
    out.u2(entry.handlerPc);
    out.u2(entry.catchType);
  }
  std::vector<Attribute> kept;
  for (const Attribute& attribute : code.attributes) {
    if (model.pool.utf8(attribute.nameIndex) != "StackMapTable") kept.push_back(attribute);
  }
  out.u2(static_cast<uint32_t>(kept.size()));
  for (const Attribute& attribute : kept) writeAttribute(out, attribute.nameIndex, attribute.info);
  return out.take();
}

}  // namespace

std::vector<uint8_t> downgradeToVersion49(std::span<const uint8_t> classBytes) {
  ClassModel model = parseClass(classBytes);
  Writer out;
  out.u4(0xCAFEBABE);
  out.u2(0);
  out.u2(49);
  model.pool.write(out);
  out.append(model.headerAndFields);
  out.u2(static_cast<uint32_t>(model.methods.size()));
  for (const Member& method : model.methods) {
    out.u2(method.accessFlags);
    out.u2(method.nameIndex);
    out.u2(method.descriptorIndex);
    out.u2(static_cast<uint32_t>(method.attributes.size()));
    for (const Attribute& attribute : method.attributes) {
      if (model.pool.utf8(attribute.nameIndex) == "Code") {
        writeAttribute(out, attribute.nameIndex, codeWithoutStackMap(model, attribute.info));
      } else {
        writeAttribute(out, attribute.nameIndex, attribute.info);
      }
    }
  }
  out.append(model.attributesBytes);
  return out.take();
}

}  // namespace jfrbpf::classfile::testing
