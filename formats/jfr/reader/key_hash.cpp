#include "formats/jfr/reader/key_hash.h"

#include <random>

namespace jfrbpf::jfr::reader {
namespace {
uint64_t processSeed() {
  std::random_device device;
  return (uint64_t(device()) << 32) ^ device();
}
}  // namespace

size_t KeyHash::operator()(int64_t key) const noexcept {
  static const uint64_t seed = processSeed();
  uint64_t x = static_cast<uint64_t>(key) ^ seed;  // then the MurmurHash3 finalizer: every bit affects every bit
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<size_t>(x);
}

}  // namespace jfrbpf::jfr::reader
