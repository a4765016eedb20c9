#pragma once
// Bump allocator for decoded values. Decoding allocates many small, trivially destructible pieces (value
// arrays, converted strings) that all die together — with the chunk's constant pools, or with the event
// being delivered — so one arena per lifetime replaces millions of individual heap allocations.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace jfrbpf::jfr::reader {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Uninitialized room for `n` objects of T.
  template <typename T>
  T* allocate(size_t n) {
    static_assert(std::is_trivially_destructible_v<T>, "the arena never runs destructors");
    return static_cast<T*>(allocateBytes(n * sizeof(T), alignof(T)));
  }

  // Forgets everything allocated; keeps the standard-size blocks for reuse.
  void reset();

 private:
  static constexpr size_t kBlockSize = 64 * 1024;
  struct Block {
    std::unique_ptr<std::byte[]> bytes;
    size_t size;
  };

  void* allocateBytes(size_t size, size_t alignment);

  std::vector<Block> blocks_;
  size_t current_ = 0;  // index of the block being filled
  size_t used_ = 0;     // bytes used in it
};

}  // namespace jfrbpf::jfr::reader
