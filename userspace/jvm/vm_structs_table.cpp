#include "userspace/jvm/vm_structs_table.h"

namespace jfrbpf::jvm {

void VmStructsTable::add(const protocol::VmStructField& r) {
  VmField f;
  f.typeString.assign(r.typeString);
  f.isStatic = r.isStatic != 0;
  f.offset = r.offset;
  f.address = r.address;
  bytes_ += 128 + r.typeName.size() + r.fieldName.size() + r.typeString.size();
  auto type = fields_.find(r.typeName);
  if (type == fields_.end()) type = fields_.emplace(std::string(r.typeName), std::map<std::string, VmField, std::less<>>{}).first;
  if (type->second.insert_or_assign(std::string(r.fieldName), std::move(f)).second) ++fieldCount_;
}

void VmStructsTable::add(const protocol::VmType& r) {
  VmTypeInfo t;
  t.superclass.assign(r.superclassName);
  t.flags = r.flags;
  t.size = r.size;
  bytes_ += 128 + r.typeName.size() + r.superclassName.size();
  types_.insert_or_assign(std::string(r.typeName), std::move(t));
}

void VmStructsTable::add(const protocol::VmConstant& r) {
  bytes_ += 96 + r.name.size();
  constants_.insert_or_assign(std::string(r.name), r.value);
}

const VmField* VmStructsTable::field(std::string_view typeName, std::string_view fieldName) const {
  auto type = fields_.find(typeName);
  if (type == fields_.end()) return nullptr;
  auto it = type->second.find(fieldName);
  return it == type->second.end() ? nullptr : &it->second;
}

std::optional<uint64_t> VmStructsTable::fieldOffset(std::string_view typeName, std::string_view fieldName) const {
  const VmField* f = field(typeName, fieldName);
  if (f == nullptr || f->isStatic) return std::nullopt;
  return f->offset;
}

std::optional<uint64_t> VmStructsTable::staticAddress(std::string_view typeName, std::string_view fieldName) const {
  const VmField* f = field(typeName, fieldName);
  if (f == nullptr || !f->isStatic) return std::nullopt;
  return f->address;
}

const VmTypeInfo* VmStructsTable::type(std::string_view typeName) const {
  auto it = types_.find(typeName);
  return it == types_.end() ? nullptr : &it->second;
}

std::optional<int64_t> VmStructsTable::constant(std::string_view name) const {
  auto it = constants_.find(name);
  return it == constants_.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

}  // namespace jfrbpf::jvm
