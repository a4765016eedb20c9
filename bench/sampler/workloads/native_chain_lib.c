/* The shared-library half of the native chain (see native_chain.h). */
#include "native_chain.h"

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE unsigned long chain_leaf(unsigned long seed) {
  unsigned long x = seed | 1;
  for (int i = 0; i < 40000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  sink = x;
  return x;
}

NOINLINE unsigned long chain_lib_step(int depth, unsigned long seed, chain_step_fn next) {
  if (depth <= 0) return chain_leaf(seed) ^ 1u; /* not a tail call: this frame stays */
  /* Using the result after the call keeps this frame on the stack (no tail call). */
  unsigned long below = next(depth - 1, seed + (unsigned long)depth);
  return below ^ (seed * 31u + (unsigned long)depth);
}
