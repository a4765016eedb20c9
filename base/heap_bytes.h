#pragma once
// Rough heap footprints of standard containers, for the memory accounts `jfrbpf dump --check` prints: what
// a node-based map holds beyond its elements, and a string's heap part.
#include <cstddef>
#include <string>

namespace jfrbpf {

// An unordered map's nodes and buckets; what its keys and values hold on the heap is the caller's to add.
template <typename Map>
size_t mapBytes(const Map& map) {
  constexpr size_t kNodeOverhead = 2 * sizeof(void*);  // next pointer, cached hash
  return map.size() * (sizeof(typename Map::value_type) + kNodeOverhead) + map.bucket_count() * sizeof(void*);
}

// A string's heap part: none while it fits in the object itself (the small-string buffer).
inline size_t heapBytes(const std::string& text) {
  return text.capacity() > std::string().capacity() ? text.capacity() + 1 : 0;
}

}  // namespace jfrbpf
