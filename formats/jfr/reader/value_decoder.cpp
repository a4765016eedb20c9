#include "formats/jfr/reader/value_decoder.h"

#include <algorithm>
#include <limits>
#include <new>

#include "formats/jfr/reader/arena.h"
#include "formats/jfr/reader/byte_cursor.h"
#include "formats/jfr/reader/constant_pools.h"
#include "formats/jfr/reader/metadata.h"
#include "formats/jfr/reader/string_encoding.h"
#include "formats/jfr/reader/value_access.h"

namespace jfrbpf::jfr::reader {

ValueDecoder::ValueDecoder(const ConstantPools& pools, Arena& arena, References references)
    : pools_(pools), arena_(arena), references_(references), stringPool_(pools.stringPoolIndex()) {}

Value ValueDecoder::decodeType(ByteCursor& in, const TypePlan& plan) {
  if (plan.primitive) return decodePrimitive(in, plan.primitiveOp);
  if (plan.collapse) return decodeField(in, plan.fields.front());
  // Header first, fields right after it: readers touch both, so they share cache lines.
  auto* object = arena_.allocate<RecordedObject>(1);
  Value* fields = arena_.allocate<Value>(plan.fields.size());
  decodeFields(in, plan, fields);
  return Value::ofObject(new (object) RecordedObject(plan.type, fields));
}

void ValueDecoder::decodeFields(ByteCursor& in, const TypePlan& plan, Value* out) {
  for (const FieldPlan& field : plan.fields) *out++ = decodeField(in, field);
}

Value ValueDecoder::decodeField(ByteCursor& in, const FieldPlan& field) {
  if (!field.array) return decodeScalar(in, field);
  size_t count = in.count("array element", field.elementSize);
  if (count > std::numeric_limits<uint32_t>::max()) in.fail("array of " + std::to_string(count) + " elements is too long");
  size_t base = arrayStack_.size();
  for (size_t i = 0; i < count; ++i) {
    Value item = decodeScalar(in, field);  // may use the stack above `base` for nested arrays
    arrayStack_.push_back(item);
  }
  Value* items = arena_.allocate<Value>(count);
  std::copy(arrayStack_.begin() + static_cast<ptrdiff_t>(base), arrayStack_.end(), items);
  arrayStack_.resize(base);
  return Value::ofArray(items, static_cast<uint32_t>(count));
}

Value ValueDecoder::decodeScalar(ByteCursor& in, const FieldPlan& field) {
  switch (field.op) {
    case WireOp::kPoolReference:
      return reference(field.poolIndex, in.varlong());
    case WireOp::kStruct:
      return decodeType(in, *field.type);
    default:
      return decodePrimitive(in, field.op);
  }
}

Value ValueDecoder::decodePrimitive(ByteCursor& in, WireOp op) {
  // Java reads every integer as a varint and narrows it to the declared type.
  switch (op) {
    case WireOp::kBool:
      return Value::ofBool(in.u8() != 0);
    case WireOp::kByte:
      return Value::ofLong(static_cast<int8_t>(in.u8()));
    case WireOp::kChar: {
      char* out = arena_.allocate<char>(3);
      size_t size = encodeUtf16Unit(static_cast<uint16_t>(in.varint()), out);
      return Value::ofString(out, static_cast<uint32_t>(size));
    }
    case WireOp::kShort:
      return Value::ofLong(static_cast<int16_t>(in.varint()));
    case WireOp::kInt:
      return Value::ofLong(static_cast<int32_t>(in.varint()));
    case WireOp::kLong:
      return Value::ofLong(in.varlong());
    case WireOp::kFloat:
      return Value::ofDouble(in.f32be());
    case WireOp::kDouble:
      return Value::ofDouble(in.f64be());
    case WireOp::kString:
      return decodeString(in);
    case WireOp::kPoolReference:
    case WireOp::kStruct:
      break;
  }
  in.fail("internal error: not a primitive wire operation");
}

namespace {
// A string's length or character count; Value holds 32-bit lengths.
size_t stringCount(ByteCursor& in, const char* what) {
  size_t count = in.count(what);
  if (count > std::numeric_limits<uint32_t>::max() / 3) in.fail("string of " + std::to_string(count) + " is too long");
  return count;
}
}  // namespace

Value ValueDecoder::decodeString(ByteCursor& in) {
  uint64_t start = in.fileOffset();
  auto encoding = static_cast<StringEncoding>(in.u8());
  switch (encoding) {
    case StringEncoding::kNull:
      return Value();
    case StringEncoding::kEmpty:
      return Value::ofString("", 0);
    case StringEncoding::kPoolReference: {
      int64_t key = in.varlong();
      return stringPool_ ? reference(*stringPool_, key) : Value();
    }
    case StringEncoding::kUtf8: {
      auto bytes = in.take(stringCount(in, "UTF-8 string byte"));
      return Value::ofString(reinterpret_cast<const char*>(bytes.data()), static_cast<uint32_t>(bytes.size()));
    }
    case StringEncoding::kCharArray: {
      size_t count = stringCount(in, "char array string");
      char* out = arena_.allocate<char>(maxUtf8SizeOfUtf16(count));
      return Value::ofString(out, static_cast<uint32_t>(decodeCharArray(in, count, out)));
    }
    case StringEncoding::kLatin1: {
      auto bytes = in.take(stringCount(in, "Latin-1 string byte"));
      char* out = arena_.allocate<char>(maxUtf8SizeOfLatin1(bytes.size()));
      return Value::ofString(out, static_cast<uint32_t>(decodeLatin1(bytes, out)));
    }
  }
  in.failAt(start, "unknown string encoding " + std::to_string(static_cast<int>(encoding)));
}

Value ValueDecoder::reference(uint32_t poolIndex, int64_t key) {
  if (references_ == References::kKeep) return ValueAccess::unresolved(poolIndex, key);
  const Value* target = pools_.find(poolIndex, key);
  return target ? *target : Value();
}

}  // namespace jfrbpf::jfr::reader
