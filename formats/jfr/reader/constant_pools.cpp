#include "formats/jfr/reader/constant_pools.h"

#include <algorithm>

#include "formats/jfr/reader/byte_cursor.h"
#include "formats/jfr/reader/metadata.h"
#include "formats/jfr/reader/schema.h"
#include "formats/jfr/reader/value_access.h"
#include "formats/jfr/reader/value_decoder.h"

namespace jfrbpf::jfr::reader {
namespace {
// A constant may legitimately be a reference to another constant (a simple type whose one field is a pool
// reference, or a string written as a String-pool key); a chain longer than this is a loop.
constexpr int kMaxReferenceHops = 16;
}  // namespace

ConstantPools::ConstantPools(const Metadata& metadata) : pools_(metadata.types().size()) {
  if (const TypeInfo* string = metadata.byName("java.lang.String"); string && string->isPrimitive()) {
    stringPool_ = static_cast<uint32_t>(string->index);
  }
}

void ConstantPools::load(ByteCursor in, const Metadata& metadata, const Schema& schema) {
  in.varint();  // size, already used to delimit `in`
  uint64_t typeOffset = in.fileOffset();
  if (in.varint() != 1) in.failAt(typeOffset, "checkpoint record does not have type id 1");
  in.varint();  // start ticks
  in.varint();  // duration
  in.varint();  // delta to the previous checkpoint, followed by the caller
  in.u8();      // type mask: flush, chunk header, statics, thread — irrelevant for reading
  ValueDecoder decoder(*this, arena_, ValueDecoder::References::kKeep);
  size_t poolCount = in.count("constant pool", 2);
  for (size_t p = 0; p < poolCount; ++p) {
    uint64_t poolOffset = in.fileOffset();
    int64_t typeId = in.varlong();
    const TypeInfo* type = metadata.byId(typeId);
    if (!type) in.failAt(poolOffset, "constant pool of undeclared type id " + std::to_string(typeId));
    const TypePlan& plan = schema.plan(*type);
    auto& pool = pools_[type->index].byKey;
    size_t count = in.count("constant", 1 + plan.minSize);  // a key, then the value
    pool.reserve(pool.size() + count);
    for (size_t i = 0; i < count; ++i) {
      int64_t key = in.varlong();
      pool.insert_or_assign(key, decoder.decodeType(in, plan));
    }
  }
  if (!in.atEnd()) {
    in.fail("checkpoint content ends " + std::to_string(in.remaining()) + " bytes before the record's size");
  }
}

const Value* ConstantPools::find(uint32_t poolIndex, int64_t key) const {
  if (poolIndex >= pools_.size()) return nullptr;
  const Pool& pool = pools_[poolIndex];
  if (!pool.dense.empty()) {
    uint64_t index = static_cast<uint64_t>(key) - static_cast<uint64_t>(pool.firstKey);
    return index < pool.dense.size() && pool.present[index] ? &pool.dense[index] : nullptr;
  }
  auto it = pool.byKey.find(key);
  return it == pool.byKey.end() ? nullptr : &it->second;
}

void ConstantPools::resolveAll(uint64_t chunkOffset) {
  chunkOffset_ = chunkOffset;
  for (Pool& pool : pools_) {
    for (auto& entry : pool.byKey) resolveValue(entry.second);
  }
  // Resolved references are copies of the constants' values, so the values may move now.
  for (Pool& pool : pools_) freeze(pool);
}

void ConstantPools::freeze(Pool& pool) {
  if (pool.byKey.empty()) return;
  auto [low, high] = std::minmax_element(pool.byKey.begin(), pool.byKey.end(),
                                         [](const auto& a, const auto& b) { return a.first < b.first; });
  uint64_t range = static_cast<uint64_t>(high->first) - static_cast<uint64_t>(low->first) + 1;
  if (range == 0 || range > 2 * pool.byKey.size() + 16) return;  // sparse (or the whole 64-bit range)
  pool.firstKey = low->first;
  pool.dense.assign(range, Value());
  pool.present.assign(range, false);
  for (const auto& [key, value] : pool.byKey) {
    uint64_t index = static_cast<uint64_t>(key) - static_cast<uint64_t>(pool.firstKey);
    pool.dense[index] = value;
    pool.present[index] = true;
  }
  pool.byKey = {};
}

// Objects and arrays nest at most Schema::kMaxInlineDepth deep, which bounds this recursion.
void ConstantPools::resolveValue(Value& value) {
  if (ValueAccess::isUnresolved(value)) {
    resolveReference(value, 0);
    return;
  }
  for (Value& child : ValueAccess::mutableChildren(value)) resolveValue(child);
}

void ConstantPools::resolveReference(Value& value, int hops) {
  if (hops > kMaxReferenceHops) {
    throw FormatError(chunkOffset_, "constant pool references form a loop (chunk starting here)");
  }
  Value* target = const_cast<Value*>(find(ValueAccess::poolIndex(value), ValueAccess::key(value)));
  if (target && ValueAccess::isUnresolved(*target)) resolveReference(*target, hops + 1);
  value = target ? *target : Value();
}

}  // namespace jfrbpf::jfr::reader
