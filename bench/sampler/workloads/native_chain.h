/* The native workload of the sampler benchmarks: a call chain that alternates between the executable and
 * a shared library, so that walking it crosses objects on every frame. */
#ifndef JFRBPF_BENCH_NATIVE_CHAIN_H
#define JFRBPF_BENCH_NATIVE_CHAIN_H

typedef unsigned long (*chain_step_fn)(int depth, unsigned long seed);

/* In the library. One chain frame per depth: a step at depth 0 calls chain_leaf, any other calls
 * next(depth - 1). */
unsigned long chain_lib_step(int depth, unsigned long seed, chain_step_fn next);
/* In the library: about 100 us of arithmetic. */
unsigned long chain_leaf(unsigned long seed);

#endif
