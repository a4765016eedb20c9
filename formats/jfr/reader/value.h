#pragma once
// Decoded JFR values. A Value is a 16-byte handle: null, boolean, integer, floating point, string, object
// (a typed struct) or array. Strings, objects and arrays point into storage owned by the reader — the
// chunk's constant pools, or the event being delivered — see recording.h for how long each lives.
//
// Accessors never throw: a value of another kind yields the neutral result (false, 0, "", nullptr, an
// empty span), because a hostile file can declare any type for any field, and callers should not need a
// try block around every field they read.
#include <cstdint>
#include <span>
#include <string_view>

namespace jfrbpf::jfr::reader {

struct TypeInfo;
class RecordedObject;

class Value {
 public:
  // Java's boolean is kBool; byte, short, int, long are kLong (sign-extended as Java reads them); char is
  // a one-character kString; float and double are kDouble.
  enum class Kind : uint8_t { kNull, kBool, kLong, kDouble, kString, kObject, kArray };

  Value() = default;
  // A null that outlives every recording: what reads of absent fields return by reference.
  static const Value& null();
  static Value ofBool(bool v) { return Value(Tag::kBool, 0, Payload{.b = v}); }
  static Value ofLong(int64_t v) { return Value(Tag::kLong, 0, Payload{.i = v}); }
  static Value ofDouble(double v) { return Value(Tag::kDouble, 0, Payload{.d = v}); }
  static Value ofString(const char* data, uint32_t size) { return Value(Tag::kString, size, Payload{.s = data}); }
  static Value ofObject(const RecordedObject* object) {
    return object ? Value(Tag::kObject, 0, Payload{.obj = object}) : Value();
  }
  static Value ofArray(const Value* items, uint32_t size) { return Value(Tag::kArray, size, Payload{.items = items}); }

  Kind kind() const { return tag_ <= Tag::kArray ? static_cast<Kind>(tag_) : Kind::kNull; }
  bool isNull() const { return kind() == Kind::kNull; }

  bool asBool() const { return tag_ == Tag::kBool && u_.b; }
  int64_t asLong() const {
    if (tag_ == Tag::kLong) return u_.i;
    return tag_ == Tag::kBool ? u_.b : 0;
  }
  double asDouble() const {
    if (tag_ == Tag::kDouble) return u_.d;
    return tag_ == Tag::kLong ? static_cast<double>(u_.i) : 0.0;
  }
  std::string_view asString() const {
    return tag_ == Tag::kString ? std::string_view(u_.s, aux_) : std::string_view();
  }
  const RecordedObject* asObject() const { return tag_ == Tag::kObject ? u_.obj : nullptr; }
  std::span<const Value> asArray() const {
    return tag_ == Tag::kArray ? std::span<const Value>(u_.items, aux_) : std::span<const Value>();
  }

 private:
  // kUnresolved: a constant-pool key read before all pools of the chunk were known. Once resolved, a
  // reference is a copy of the constant's value (objects keep their identity: the same object pointer).
  enum class Tag : uint8_t { kNull, kBool, kLong, kDouble, kString, kObject, kArray, kUnresolved };
  union Payload {
    bool b;
    int64_t i;
    double d;
    const char* s;
    const Value* items;
    const RecordedObject* obj;
  };
  Value(Tag tag, uint32_t aux, Payload payload) : tag_(tag), aux_(aux), u_(payload) {}

  friend class ValueAccess;

  Tag tag_ = Tag::kNull;
  uint32_t aux_ = 0;  // string length, array length, or the pool index of an unresolved reference
  Payload u_{.i = 0};
};
static_assert(sizeof(Value) == 16);

// An instance of a non-simple type: an event, a constant such as a java.lang.Thread, or an inline struct
// such as a jdk.types.StackFrame. Fields are in metadata order (TypeInfo::fields).
class RecordedObject {
 public:
  RecordedObject(const TypeInfo* type, const Value* fields) : type_(type), fields_(fields) {}

  const TypeInfo& type() const { return *type_; }
  size_t fieldCount() const;
  // The null value when the index is out of range or the type has no field of that name.
  const Value& field(size_t index) const;
  const Value& get(std::string_view fieldName) const;

  bool getBool(std::string_view fieldName) const { return get(fieldName).asBool(); }
  int64_t getLong(std::string_view fieldName) const { return get(fieldName).asLong(); }
  double getDouble(std::string_view fieldName) const { return get(fieldName).asDouble(); }
  std::string_view getString(std::string_view fieldName) const { return get(fieldName).asString(); }
  const RecordedObject* getObject(std::string_view fieldName) const { return get(fieldName).asObject(); }

 private:
  friend class ValueAccess;
  const TypeInfo* type_;
  const Value* fields_;
};

}  // namespace jfrbpf::jfr::reader
