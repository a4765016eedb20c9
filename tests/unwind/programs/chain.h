/* A 20-level call chain split over an executable and two shared libraries, all built without frame
 * pointers, for the unwinder tests. The innermost function parks the thread in a known state:
 *   CHAIN_STOP    raise(SIGSTOP) (the test is the ptrace parent)
 *   CHAIN_SIGNAL  raise(SIGUSR1); the handler then raises SIGSTOP, so the stack crosses a signal frame
 *   CHAIN_READ    block in read() on a pipe nobody writes to */
#ifndef UNWIND_CHAIN_H
#define UNWIND_CHAIN_H

enum chain_mode { CHAIN_STOP = 0, CHAIN_SIGNAL = 1, CHAIN_READ = 2 };

struct chain_args {
  enum chain_mode mode;
  int read_fd;
};

/* executable: levels 1-10 */
int exe_level_01(const struct chain_args* args, int depth);
/* libunwind_chain_a.so (.eh_frame): levels 11-13 and 17-20, the leaf and the signal handler */
int lib_level_11(const struct chain_args* args, int depth);
int lib_level_17(const struct chain_args* args, int depth);
int chain_leaf(const struct chain_args* args, int depth);
/* libunwind_chain_b.so (.debug_frame only): levels 14-16 */
int dbg_level_14(const struct chain_args* args, int depth);

#endif
