#pragma once
// How to decode each type of a chunk (internal to the reader): one plan per metadata type, built once per
// chunk, so decoding a value never looks anything up by name.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace jfrbpf::jfr::reader {

class Metadata;
struct TypeInfo;

enum class WireOp : uint8_t {
  kBool,
  kByte,
  kChar,
  kShort,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kString,
  kPoolReference,  // varint key into the pool of the field's type
  kStruct,         // the type's fields inline
};

struct TypePlan;

struct FieldPlan {
  WireOp op;
  bool array;
  uint32_t poolIndex;    // kPoolReference: TypeInfo::index of the referenced type
  const TypePlan* type;  // kStruct: the inline type
  size_t elementSize;    // fewest bytes one element occupies (>= 1), to bound array counts
};

struct TypePlan {
  const TypeInfo* type = nullptr;
  size_t minSize = 1;              // fewest bytes a value of this type occupies on the wire (>= 1 when inline)
  bool primitive = false;          // the type is read with `primitiveOp` (pools of strings, for instance)
  WireOp primitiveOp = WireOp::kLong;
  bool collapse = false;           // simple type: its value is its one field's value
  std::vector<FieldPlan> fields;
};

class Schema {
 public:
  // Deeper inline nesting than this is rejected, which also bounds the decoder's recursion.
  static constexpr int kMaxInlineDepth = 32;

  // Throws FormatError (at `metadataOffset`) for types that contain themselves inline, nest too deeply, or
  // are stored inline without occupying any bytes (which would let a few bytes decode into unbounded
  // numbers of values; the JDK rejects such types too).
  Schema(const Metadata& metadata, uint64_t metadataOffset);
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  const TypePlan& plan(const TypeInfo& type) const;

 private:
  std::vector<TypePlan> plans_;  // by TypeInfo::index; never resized after construction
};

}  // namespace jfrbpf::jfr::reader
