/* Unwinding native frames: by the compact .eh_frame tables userspace loads for each mapped file (so code
 * built without frame pointers unwinds correctly), else by the frame-pointer chain. Table layout and rules:
 * bpf/unwind_abi.h. */
#ifndef JFRBPF_NATIVE_FRAMES_BPF_H
#define JFRBPF_NATIVE_FRAMES_BPF_H

#include "walker_state.bpf.h"

#define NATIVE_MAX_FRAME_BYTES (8u << 20)

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1); /* sized by the loader, which writes rows through a shared mapping */
  __uint(map_flags, BPF_F_MMAPABLE);
  __type(key, __u32);
  __type(value, struct jfrbpf_unwind_row);
} unwind_rows SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4096);
  __type(key, __u64); /* file id */
  __type(value, struct jfrbpf_unwind_file);
} unwind_files SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u32); /* tgid */
  __type(value, struct jfrbpf_unwind_process);
} unwind_processes SEC(".maps");

/* The table row that covers `pc` in this process, or NULL (no mapping, no table, or a gap). */
static __always_inline const struct jfrbpf_unwind_row* find_unwind_row(__u32 tgid, __u64 pc) {
  const struct jfrbpf_unwind_process* proc = bpf_map_lookup_elem(&unwind_processes, &tgid);
  if (!proc) return 0;
  /* Last mapping with start <= pc. */
  __u32 lo = 0, hi = proc->mapping_count;
  if (hi > JFRBPF_UNWIND_MAX_MAPPINGS) hi = JFRBPF_UNWIND_MAX_MAPPINGS;
  for (int i = 0; i < JFRBPF_UNWIND_MAPPING_SEARCH_STEPS && lo < hi; i++) {
    __u32 mid = (lo + hi) / 2;
    if (mid >= JFRBPF_UNWIND_MAX_MAPPINGS) return 0;
    if (proc->mappings[mid].start <= pc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0 || lo > JFRBPF_UNWIND_MAX_MAPPINGS) return 0;
  const struct jfrbpf_unwind_mapping* mapping = &proc->mappings[(lo - 1) & (JFRBPF_UNWIND_MAX_MAPPINGS - 1)];
  if (pc >= mapping->end) return 0;
  __u64 file_id = mapping->file_id;
  const struct jfrbpf_unwind_file* file = bpf_map_lookup_elem(&unwind_files, &file_id);
  if (!file || file->row_count == 0) return 0;
  __u64 row_pc = pc - mapping->bias;
  if (row_pc > 0xffffffffull) return 0;
  /* Last row with row.pc <= row_pc. */
  __u32 first = file->first_row;
  __u32 left = 0, right = file->row_count;
  for (int i = 0; i < JFRBPF_UNWIND_SEARCH_STEPS && left < right; i++) {
    __u32 mid = (left + right) / 2;
    __u32 index = first + mid;
    const struct jfrbpf_unwind_row* row = bpf_map_lookup_elem(&unwind_rows, &index);
    if (!row) return 0;
    if (row->pc <= (__u32)row_pc) {
      left = mid + 1;
    } else {
      right = mid;
    }
  }
  if (left == 0) return 0;
  __u32 index = first + left - 1;
  return bpf_map_lookup_elem(&unwind_rows, &index);
}

/* Applies a table row. Returns -1 to stop (reason set), 0 to continue, 1 when there was no usable row. */
static __always_inline int apply_unwind_row(struct walk* w, const struct jfrbpf_unwind_row* row) {
  __u64 cfa = 0;
  switch (row->kind) {
    case JFRBPF_UNWIND_CFA_RSP:
      cfa = w->sp + (__u64)row->cfa_param * 8;
      break;
    case JFRBPF_UNWIND_CFA_RBP:
      cfa = w->fp + (__u64)row->cfa_param * 8;
      break;
    case JFRBPF_UNWIND_PLT:
      cfa = w->sp + 8 + ((w->pc & 15) >= row->cfa_param ? 8 : 0);
      break;
    case JFRBPF_UNWIND_SIGNAL: {
      __u64 pc = 0, sp = 0, fp = 0;
      if (!read_user_u64(w->sp + JFRBPF_UCONTEXT_RIP_OFFSET, &pc) ||
          !read_user_u64(w->sp + JFRBPF_UCONTEXT_RSP_OFFSET, &sp) ||
          !read_user_u64(w->sp + JFRBPF_UCONTEXT_RBP_OFFSET, &fp)) {
        walk_stop(w, JFRBPF_WALK_READ_FAULT);
        return -1;
      }
      w->pc = pc;
      w->sp = sp;
      w->fp = fp;
      w->exact_pc = 1; /* an interrupted pc, not a return address */
      return 0;
    }
    case JFRBPF_UNWIND_END_OF_STACK:
      walk_stop(w, JFRBPF_WALK_ROOT);
      return -1;
    default:
      return 1;
  }
  __u64 caller_pc = 0;
  if (cfa <= w->sp || !read_user_u64(cfa - 8, &caller_pc)) {
    walk_stop(w, JFRBPF_WALK_READ_FAULT);
    return -1;
  }
  __u64 caller_fp = w->fp;
  if (row->rbp_slot == JFRBPF_UNWIND_RBP_LOST) {
    caller_fp = 0;
  } else if (row->rbp_slot != JFRBPF_UNWIND_RBP_UNCHANGED &&
             !read_user_u64(cfa + (__s64)row->rbp_slot * 8, &caller_fp)) {
    walk_stop(w, JFRBPF_WALK_READ_FAULT);
    return -1;
  }
  w->pc = caller_pc;
  w->sp = cfa;
  w->fp = caller_fp;
  return 0;
}

/* Frame-pointer step; false when rbp does not look like a frame pointer of this stack. */
static __always_inline bool unwind_by_frame_pointer(struct walk* w) {
  __u64 fp = w->fp;
  if (fp == 0 || (fp & 7) != 0 || fp < w->sp || fp - w->sp > NATIVE_MAX_FRAME_BYTES) return false;
  __u64 caller_pc = 0, caller_fp = 0;
  if (!read_user_u64(fp + 8, &caller_pc) || !read_user_u64(fp, &caller_fp)) return false;
  w->pc = caller_pc;
  w->sp = fp + 16;
  w->fp = caller_fp;
  return true;
}

#endif
