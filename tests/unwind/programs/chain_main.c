/* Test program: main -> exe_level_01 .. exe_level_10 -> (libraries) -> chain_leaf. See chain.h.
 * Usage: unwind_chain_program stop|signal|read. In "read" mode the chain runs on a second thread, whose
 * tid is printed on stdout, while the main thread waits in pthread_join. */
#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "chain.h"

#define NOINLINE __attribute__((noinline))
/* Makes the compiler keep a buffer (and so the alloca, which forces an rbp-based CFA). */
#define ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

/* Each level keeps a value live across its call (no tail call) and uses its own frame shape: plain,
 * large local arrays, many callee-saved registers, and alloca (which forces an rbp-based CFA). */
NOINLINE int exe_level_10(const struct chain_args* args, int depth) {
  volatile int keep = depth;
  return lib_level_11(args, depth + 1) + keep;
}

NOINLINE int exe_level_09(const struct chain_args* args, int depth) {
  char* scratch = alloca(64 + (depth & 7));
  memset(scratch, depth, 64);
  ESCAPE(scratch);
  return exe_level_10(args, depth + 1) + scratch[3];
}

NOINLINE int exe_level_08(const struct chain_args* args, int depth) {
  volatile char big[5000];
  big[depth] = (char)depth;
  return exe_level_09(args, depth + 1) + big[depth];
}

NOINLINE int exe_level_07(const struct chain_args* args, int depth) {
  int a = depth * 3, b = depth * 5, c = depth * 7, d = depth * 11, e = depth * 13;
  int r = exe_level_08(args, depth + 1);
  return r + a * b + c * d + e;
}

NOINLINE int exe_level_06(const struct chain_args* args, int depth) {
  volatile int keep = depth;
  return exe_level_07(args, depth + 1) + keep;
}

NOINLINE int exe_level_05(const struct chain_args* args, int depth) {
  char* scratch = alloca(32 + (depth & 15));
  memset(scratch, 1, 32);
  ESCAPE(scratch);
  int r = exe_level_06(args, depth + 1);
  return r + scratch[5];
}

NOINLINE int exe_level_04(const struct chain_args* args, int depth) {
  volatile long keep[4] = {depth, depth, depth, depth};
  return exe_level_05(args, depth + 1) + (int)keep[2];
}

NOINLINE int exe_level_03(const struct chain_args* args, int depth) {
  volatile int keep = depth;
  return exe_level_04(args, depth + 1) - keep;
}

NOINLINE int exe_level_02(const struct chain_args* args, int depth) {
  int a = depth + 1, b = depth + 2, c = depth + 3;
  int r = exe_level_03(args, depth + 1);
  return r ^ a ^ b ^ c;
}

NOINLINE int exe_level_01(const struct chain_args* args, int depth) {
  volatile int keep = depth;
  return exe_level_02(args, depth + 1) + keep;
}

static void* thread_entry(void* opaque) {
  const struct chain_args* args = opaque;
  exe_level_01(args, 1);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s stop|signal|read\n", argv[0]);
    return 2;
  }
  struct chain_args args = {CHAIN_STOP, -1};
  if (strcmp(argv[1], "signal") == 0) args.mode = CHAIN_SIGNAL;
  if (strcmp(argv[1], "read") != 0) return exe_level_01(&args, 1) == 12345 ? 3 : 0;

  int fds[2];
  if (pipe(fds) != 0) return 1;
  args.mode = CHAIN_READ;
  args.read_fd = fds[0];
  pthread_t thread;
  if (pthread_create(&thread, NULL, thread_entry, &args) != 0) return 1;
  pthread_join(thread, NULL);
  return 0;
}
