#pragma once
// Hash for 64-bit keys read from files (internal to the reader). std::hash<int64_t> is the identity, so a
// hostile file could choose pool keys or type ids that all land in one bucket and make every insert and
// lookup linear. Seeding per process and mixing all bits makes bucket positions unpredictable.
#include <cstddef>
#include <cstdint>

namespace jfrbpf::jfr::reader {

struct KeyHash {
  size_t operator()(int64_t key) const noexcept;
};

}  // namespace jfrbpf::jfr::reader
