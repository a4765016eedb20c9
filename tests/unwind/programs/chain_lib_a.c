/* libunwind_chain_a.so: levels 11-13 and 17-20 of the chain, the leaf and the signal handler. */
#define _GNU_SOURCE
#include <alloca.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "chain.h"

#define NOINLINE __attribute__((noinline))
/* Makes the compiler keep a buffer (and so the alloca, which forces an rbp-based CFA). */
#define ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

NOINLINE void chain_signal_handler(int signo) {
  volatile int keep = signo;
  raise(SIGSTOP);
  keep++;
}

NOINLINE int chain_leaf(const struct chain_args* args, int depth) {
  volatile int keep = depth;
  switch (args->mode) {
    case CHAIN_STOP:
      raise(SIGSTOP);
      break;
    case CHAIN_SIGNAL: {
      struct sigaction action;
      memset(&action, 0, sizeof(action));
      action.sa_handler = chain_signal_handler;
      sigaction(SIGUSR1, &action, NULL);
      raise(SIGUSR1);
      break;
    }
    case CHAIN_READ: {
      printf("%ld\n", (long)syscall(SYS_gettid));
      fflush(stdout);
      char byte;
      keep += (int)read(args->read_fd, &byte, 1);
      break;
    }
  }
  return keep;
}

NOINLINE int lib_level_20(const struct chain_args* args, int depth) {
  volatile int keep = depth;
  return chain_leaf(args, depth + 1) + keep;
}

NOINLINE int lib_level_19(const struct chain_args* args, int depth) {
  char* scratch = alloca(48 + (depth & 7));
  memset(scratch, 2, 48);
  ESCAPE(scratch);
  return lib_level_20(args, depth + 1) + scratch[7];
}

NOINLINE int lib_level_18(const struct chain_args* args, int depth) {
  volatile char big[3000];
  big[depth] = (char)depth;
  return lib_level_19(args, depth + 1) + big[depth];
}

NOINLINE int lib_level_17(const struct chain_args* args, int depth) {
  int a = depth * 3, b = depth * 5, c = depth * 7, d = depth * 9;
  int r = lib_level_18(args, depth + 1);
  return r + a * b + c * d;
}

NOINLINE int lib_level_13(const struct chain_args* args, int depth) {
  volatile int keep = depth;
  return dbg_level_14(args, depth + 1) + keep;
}

NOINLINE int lib_level_12(const struct chain_args* args, int depth) {
  char* scratch = alloca(16 + (depth & 3));
  memset(scratch, 3, 16);
  ESCAPE(scratch);
  return lib_level_13(args, depth + 1) + scratch[1];
}

NOINLINE int lib_level_11(const struct chain_args* args, int depth) {
  volatile long keep[3] = {depth, depth, depth};
  return lib_level_12(args, depth + 1) + (int)keep[1];
}
