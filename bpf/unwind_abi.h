/* Compact unwind tables as the BPF stack walker reads them. Plain C so that a BPF program (with vmlinux.h
 * types) and userspace (with linux/types.h) include the same layout.
 *
 * One table per ELF file: rows sorted by pc, each row holding from its pc up to the next row's pc. A pc
 * below the first row, or in a row of kind NONE, has no unwind information. Row pcs are file virtual
 * addresses minus the table's pc base (0 for every ordinary file), so for a mapping of the file
 *     row pc = runtime pc - (load bias + pc base)
 * and a table never exceeds JFRBPF_UNWIND_MAX_ROWS rows, so the binary search "last row with
 * row.pc <= pc" finishes in JFRBPF_UNWIND_SEARCH_STEPS iterations.
 *
 * Walking one frame, with the registers of the current frame (pc, rsp, rbp):
 *   CFA_RSP:  cfa = rsp + 8*cfa_param        CFA_RBP: cfa = rbp + 8*cfa_param
 *   PLT:      cfa = rsp + 8 + ((pc & 15) >= cfa_param ? 8 : 0)   (lazy-binding PLT entries)
 *   then: caller pc = *(cfa - 8); caller rsp = cfa;
 *         caller rbp = rbp_slot == 0 ? rbp : rbp_slot == JFRBPF_UNWIND_RBP_LOST ? unknown : *(cfa + 8*rbp_slot)
 *   SIGNAL:   the frame is the sigreturn trampoline; rsp points at a struct ucontext (rt_sigframe.uc):
 *             caller pc = *(rsp + 168), rsp = *(rsp + 160), rbp = *(rsp + 120)
 *             (uc_mcontext at offset 40, gregs REG_RIP=16, REG_RSP=15, REG_RBP=10, 8 bytes each)
 *   END_OF_STACK: the return address is undefined (_start, clone/clone3 child): the walk is complete.
 *   CLONE:    the instructions from a clone syscall to where the child's own unwind information begins
 *             (glibc's clone and clone3 describe neither side there): in the parent nothing is pushed, so
 *             CFA_RSP with cfa_param 1 and rbp unchanged; the child (rax 0) is at its outermost frame.
 *   NONE / UNSUPPORTED: stop; the stack is truncated here.
 * A caller's row is looked up at (return address - 1), since a call can be the last instruction of a
 * function; the first frame and the frame interrupted by a signal are looked up at their exact pc, or at
 * pc - 1 where pc has no row and follows a syscall instruction: a thread in a system call is right after it,
 * and it may end its function (the sigreturn trampoline's does). */
#ifndef JFRBPF_UNWIND_ABI_H
#define JFRBPF_UNWIND_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

enum jfrbpf_unwind_kind {
  JFRBPF_UNWIND_NONE = 0,
  JFRBPF_UNWIND_CFA_RSP = 1,
  JFRBPF_UNWIND_CFA_RBP = 2,
  JFRBPF_UNWIND_PLT = 3,
  JFRBPF_UNWIND_SIGNAL = 4,
  JFRBPF_UNWIND_END_OF_STACK = 5,
  JFRBPF_UNWIND_UNSUPPORTED = 6,
  JFRBPF_UNWIND_CLONE = 7,
  JFRBPF_UNWIND_KIND_COUNT = 8,
};

#define JFRBPF_UNWIND_RBP_UNCHANGED 0
#define JFRBPF_UNWIND_RBP_LOST (-128)

#define JFRBPF_UNWIND_MAX_ROWS (1u << 20)
#define JFRBPF_UNWIND_SEARCH_STEPS 21

/* sigreturn frame: offsets from rsp (== &ucontext) of the interrupted context's registers. */
#define JFRBPF_UCONTEXT_RBP_OFFSET 120
#define JFRBPF_UCONTEXT_RSP_OFFSET 160
#define JFRBPF_UCONTEXT_RIP_OFFSET 168

struct jfrbpf_unwind_row {
  __u32 pc;        /* start of the row, relative to the table's pc base */
  __u16 cfa_param; /* CFA_RSP / CFA_RBP / CLONE: offset in 8-byte units; PLT: the (pc & 15) threshold; else 0 */
  __u8 kind;       /* enum jfrbpf_unwind_kind */
  __s8 rbp_slot;   /* where the caller's rbp is saved, in 8-byte slots from the cfa (see above) */
};

/* Suggested BPF map layout (see README.md in this directory for sizes):
 *   rows:     ARRAY of struct jfrbpf_unwind_row, all tables back to back;
 *   files:    HASH file id -> struct jfrbpf_unwind_file (where its rows are);
 *   mappings: HASH tgid -> struct jfrbpf_unwind_process (sorted executable mappings). */
struct jfrbpf_unwind_file {
  __u32 first_row;
  __u32 row_count;
};

struct jfrbpf_unwind_mapping {
  __u64 start;   /* runtime address range [start, end) */
  __u64 end;
  __u64 bias;    /* load bias + pc base: row pc = runtime pc - bias */
  __u64 file_id; /* key of the files map */
};

#define JFRBPF_UNWIND_MAX_MAPPINGS 256
#define JFRBPF_UNWIND_MAPPING_SEARCH_STEPS 9

struct jfrbpf_unwind_process {
  __u32 mapping_count;
  __u32 reserved;
  struct jfrbpf_unwind_mapping mappings[JFRBPF_UNWIND_MAX_MAPPINGS];
};

#endif /* JFRBPF_UNWIND_ABI_H */
