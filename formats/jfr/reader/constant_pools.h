#pragma once
// A chunk's constant pools (internal to the reader). Checkpoints are loaded in file order — a later entry
// for the same type and key replaces an earlier one — and references between constants are resolved only
// once every checkpoint is in, because writers emit constants before the constants they refer to.
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "formats/jfr/reader/arena.h"
#include "formats/jfr/reader/key_hash.h"
#include "formats/jfr/reader/value.h"

namespace jfrbpf::jfr::reader {

class ByteCursor;
class Metadata;
class Schema;

class ConstantPools {
 public:
  explicit ConstantPools(const Metadata& metadata);
  ConstantPools(const ConstantPools&) = delete;
  ConstantPools& operator=(const ConstantPools&) = delete;

  // Loads one checkpoint record; `record` spans it, starting at its size varint.
  void load(ByteCursor record, const Metadata& metadata, const Schema& schema);
  // Replaces every key read so far by its constant's value (null when the key is absent), then freezes
  // the pools for lookups. Throws FormatError at `chunkOffset` when references loop.
  void resolveAll(uint64_t chunkOffset);

  // The constant for `key` in the pool of the type with index `poolIndex`; null when absent.
  const Value* find(uint32_t poolIndex, int64_t key) const;
  // Index of the java.lang.String pool (string encoding 2), when the metadata declares that type.
  std::optional<uint32_t> stringPoolIndex() const { return stringPool_; }

 private:
  void resolveValue(Value& value);
  void resolveReference(Value& value, int hops);

  // Writers number most pools densely (stack traces 1, 2, 3, …; HotSpot's thread ids), so a frozen pool
  // whose keys fill at least half of their range becomes a vector indexed by key: one bounds check
  // instead of a hash lookup for every reference an event holds.
  struct Pool {
    std::unordered_map<int64_t, Value, KeyHash> byKey;  // while loading, and for sparse keys afterwards
    int64_t firstKey = 0;
    std::vector<Value> dense;    // values of keys firstKey, firstKey + 1, …
    std::vector<bool> present;   // which of them the pool defines
  };
  static void freeze(Pool& pool);

  std::vector<Pool> pools_;  // by TypeInfo::index
  std::optional<uint32_t> stringPool_;
  Arena arena_;  // objects, arrays and converted strings of every constant
  uint64_t chunkOffset_ = 0;
};

}  // namespace jfrbpf::jfr::reader
