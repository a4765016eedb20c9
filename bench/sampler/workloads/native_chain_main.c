/* Native workload of the sampler benchmarks: native_chain FRAMES THREADS
 * Each of THREADS threads calls down a chain that alternates between this executable and a shared library
 * (native_chain.h) and burns about 100 us at the bottom, forever. FRAMES is the whole user stack of a
 * sample at the bottom: clone3, start_thread, chain_thread, the chain, chain_leaf. Prints "ready" once
 * every thread runs; runs until killed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "native_chain.h"

#define NOINLINE __attribute__((noinline))

enum { kFramesOutsideChain = 4 }; /* clone3, start_thread, chain_thread, chain_leaf */

static int chain_depth;

NOINLINE static unsigned long exe_step(int depth, unsigned long seed) {
  if (depth <= 0) return chain_leaf(seed) ^ 1u; /* not a tail call: this frame stays */
  unsigned long below = chain_lib_step(depth - 1, seed ^ (unsigned long)depth, exe_step);
  return below + (unsigned long)depth;
}

static void* chain_thread(void* arg) {
  unsigned long seed = (unsigned long)arg;
  for (;;) seed = exe_step(chain_depth - 1, seed);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s FRAMES THREADS\n", argv[0]);
    return 2;
  }
  int frames = atoi(argv[1]);
  int threads = atoi(argv[2]);
  if (frames <= kFramesOutsideChain || threads <= 0 || threads > 256) {
    fprintf(stderr, "FRAMES must be more than %d, THREADS 1..256\n", kFramesOutsideChain);
    return 2;
  }
  chain_depth = frames - kFramesOutsideChain;
  for (int t = 0; t < threads; ++t) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, chain_thread, (void*)(unsigned long)(t + 1)) != 0) {
      perror("pthread_create");
      return 1;
    }
  }
  printf("ready\n");
  fflush(stdout);
  for (;;) pause();
}
