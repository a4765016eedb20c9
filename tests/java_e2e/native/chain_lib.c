/* The library half of native_chain's call chain (chain_11 .. chain_20) and its leaf. Built with
 * -fomit-frame-pointer -O2 -fno-optimize-sibling-calls: only .eh_frame describes these frames. */
#include "chain.h"

volatile unsigned long chain_sink;

CHAIN_LINK unsigned long chain_leaf(unsigned long x) {
  unsigned long h = x;
  for (unsigned long i = 0; i < 200000; ++i) h = h * 6364136223846793005ul + 1442695040888963407ul;
  return h;
}

/* Each link works after its call returns, so even without -fno-optimize-sibling-calls it is no tail call. */
#define CHAIN(n, next)                          \
  CHAIN_LINK unsigned long chain_##n(unsigned long x) { \
    unsigned long r = next(x + 1);              \
    chain_sink += r;                            \
    return r ^ x;                               \
  }

CHAIN(20, chain_leaf)
CHAIN(19, chain_20)
CHAIN(18, chain_19)
CHAIN(17, chain_18)
CHAIN(16, chain_17)
CHAIN(15, chain_16)
CHAIN(14, chain_15)
CHAIN(13, chain_14)
CHAIN(12, chain_13)
CHAIN(11, chain_12)
