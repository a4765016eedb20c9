#include "formats/jfr/reader/value.h"

#include "formats/jfr/reader/metadata.h"
#include "formats/jfr/reader/value_access.h"

namespace jfrbpf::jfr::reader {
const Value& Value::null() {
  static const Value kNull;
  return kNull;
}

size_t RecordedObject::fieldCount() const { return type_->fields.size(); }

const Value& RecordedObject::field(size_t index) const {
  return index < type_->fields.size() ? fields_[index] : Value::null();
}

const Value& RecordedObject::get(std::string_view fieldName) const {
  const auto& fields = type_->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == fieldName) return fields_[i];
  }
  return Value::null();
}

std::span<Value> ValueAccess::mutableChildren(const Value& v) {
  if (v.tag_ == Value::Tag::kArray) return {const_cast<Value*>(v.u_.items), v.aux_};
  if (v.tag_ == Value::Tag::kObject) {
    const RecordedObject* object = v.u_.obj;
    return {const_cast<Value*>(object->fields_), object->fieldCount()};
  }
  return {};
}

}  // namespace jfrbpf::jfr::reader
