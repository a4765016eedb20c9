#pragma once
// Decodes values from the wire following a TypePlan (internal to the reader).
#include <cstdint>
#include <optional>
#include <vector>

#include "formats/jfr/reader/schema.h"
#include "formats/jfr/reader/value.h"

namespace jfrbpf::jfr::reader {

class Arena;
class ByteCursor;
class ConstantPools;

class ValueDecoder {
 public:
  // kKeep while loading constant pools (keys become unresolved references, patched later);
  // kResolve for events, read after every pool of the chunk is complete.
  enum class References { kKeep, kResolve };

  // Strings, objects and arrays are allocated in `arena`; UTF-8 strings point into the input bytes.
  ValueDecoder(const ConstantPools& pools, Arena& arena, References references);

  // A value of the plan's type, as a pool entry or inline field stores it.
  Value decodeType(ByteCursor& in, const TypePlan& plan);
  // The fields of one object (an event) into `out`, which has room for plan.fields.size() values.
  void decodeFields(ByteCursor& in, const TypePlan& plan, Value* out);

 private:
  Value decodeField(ByteCursor& in, const FieldPlan& field);
  Value decodeScalar(ByteCursor& in, const FieldPlan& field);
  Value decodePrimitive(ByteCursor& in, WireOp op);
  Value decodeString(ByteCursor& in);
  Value reference(uint32_t poolIndex, int64_t key);

  const ConstantPools& pools_;
  Arena& arena_;
  References references_;
  std::optional<uint32_t> stringPool_;
  // Array elements being decoded, innermost array on top. Arrays are copied to the arena only once
  // complete, so memory follows the bytes actually decoded rather than counts claimed by the input.
  std::vector<Value> arrayStack_;
};

}  // namespace jfrbpf::jfr::reader
