// The library a hostile target maps and then replaces on disk: its code is where the target spends its time,
// so every sample makes the recorder look for the file behind the mapping.
#include <stdint.h>

__attribute__((noinline)) uint64_t hostile_spin(uint64_t rounds) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint64_t i = 0; i < rounds; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    __asm__ volatile("" : "+r"(x));
  }
  return x;
}
