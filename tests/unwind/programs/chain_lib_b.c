/* libunwind_chain_b.so: levels 14-16, built without .eh_frame (-fno-asynchronous-unwind-tables
 * -fno-unwind-tables -g), so its only call frame information is .debug_frame. */
#include <alloca.h>
#include <string.h>

#include "chain.h"

#define NOINLINE __attribute__((noinline))
/* Makes the compiler keep a buffer (and so the alloca, which forces an rbp-based CFA). */
#define ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

NOINLINE int dbg_level_16(const struct chain_args* args, int depth) {
  volatile int keep = depth;
  return lib_level_17(args, depth + 1) + keep;
}

NOINLINE int dbg_level_15(const struct chain_args* args, int depth) {
  char* scratch = alloca(24 + (depth & 7));
  memset(scratch, 4, 24);
  ESCAPE(scratch);
  return dbg_level_16(args, depth + 1) + scratch[2];
}

NOINLINE int dbg_level_14(const struct chain_args* args, int depth) {
  volatile char big[2000];
  big[depth] = (char)depth;
  return dbg_level_15(args, depth + 1) + big[depth];
}
