#pragma once
// The decoder's and constant pools' view of Value internals: constant-pool references awaiting
// resolution (internal to the reader).
#include <cstdint>
#include <span>

#include "formats/jfr/reader/value.h"

namespace jfrbpf::jfr::reader {

class ValueAccess {
 public:
  static Value unresolved(uint32_t poolIndex, int64_t key) {
    return Value(Value::Tag::kUnresolved, poolIndex, Value::Payload{.i = key});
  }
  static bool isUnresolved(const Value& v) { return v.tag_ == Value::Tag::kUnresolved; }
  static uint32_t poolIndex(const Value& v) { return v.aux_; }
  static int64_t key(const Value& v) { return v.u_.i; }

  // The values inside an object or array (empty for other kinds), writable: constant pools patch them
  // while resolving references. Their storage is the pools' own arena, so writing is sound.
  static std::span<Value> mutableChildren(const Value& v);
};

}  // namespace jfrbpf::jfr::reader
