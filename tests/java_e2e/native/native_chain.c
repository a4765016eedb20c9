/* A native program without frame pointers for the unwinding tests:
 *   chain      loops through a call chain 20 deep (chain_01 .. chain_20) that crosses into libe2e_chain.so
 *   syscaller  loops over getppid(2) through libc, so it is on CPU in the kernel most of the time
 * Prints "ready <name> <tid>" per thread and runs until killed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "chain.h"

static volatile unsigned long sink;
static pthread_mutex_t announce_lock = PTHREAD_MUTEX_INITIALIZER;

static void announce(const char* name) {
  prctl(PR_SET_NAME, name);
  pthread_mutex_lock(&announce_lock);
  printf("ready %s %ld\n", name, (long)syscall(SYS_gettid));
  fflush(stdout);
  pthread_mutex_unlock(&announce_lock);
}

#define CHAIN(n, next)                          \
  CHAIN_LINK unsigned long chain_##n(unsigned long x) { \
    unsigned long r = next(x + 1);              \
    sink += r;                                  \
    return r ^ x;                               \
  }

CHAIN(10, chain_11)
CHAIN(09, chain_10)
CHAIN(08, chain_09)
CHAIN(07, chain_08)
CHAIN(06, chain_07)
CHAIN(05, chain_06)
CHAIN(04, chain_05)
CHAIN(03, chain_04)
CHAIN(02, chain_03)
CHAIN(01, chain_02)

CHAIN_LINK void syscall_spin(void) {
  for (int i = 0; i < 1000; ++i) sink += (unsigned long)getppid();
}

static void* chain_thread(void* arg) {
  (void)arg;
  announce("chain");
  for (unsigned long i = 0;; ++i) sink += chain_01(i);
  return NULL;
}

static void* syscall_thread(void* arg) {
  (void)arg;
  announce("syscaller");
  for (;;) syscall_spin();
  return NULL;
}

int main(void) {
  pthread_t chain, syscaller;
  pthread_create(&chain, NULL, chain_thread, NULL);
  pthread_create(&syscaller, NULL, syscall_thread, NULL);
  for (;;) pause();
}
