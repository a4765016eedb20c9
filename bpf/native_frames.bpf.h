/* Unwinding native frames: by the compact .eh_frame tables userspace loads for each mapped file (so code
 * built without frame pointers unwinds correctly), else by the frame-pointer chain. Table layout and rules:
 * bpf/unwind_abi.h. */
#ifndef JFRBPF_NATIVE_FRAMES_BPF_H
#define JFRBPF_NATIVE_FRAMES_BPF_H

#include <bpf/bpf_core_read.h>

#include "walker_state.bpf.h"

#define NATIVE_MAX_FRAME_BYTES (8u << 20)

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE); /* the loader writes a library's rows with one copy into its mapping */
  __uint(max_entries, 1);            /* sized by the loader */
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

/* Where find_unwind_row's binary searches keep their bounds between steps, per CPU and scratch (a program
 * that interrupts another on this CPU walks in another scratch). Only for the verifier: a value read back
 * from a map is unknown to it, so every path through a search step reaches the next step with the same
 * state and is pruned there. Kept in registers, the bounds are different constants or ranges on each of the
 * search's paths, and since 6.17 the verifier compares scalars inside a loop by their ranges, precise or not
 * (a stored state whose loop is still being explored): it followed each path to the end, 330k of the 520k
 * instructions it processed per walker program. */
struct search_bounds {
  __u32 lo;
  __u32 hi;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, SCRATCHES);
  __type(key, __u32);
  __type(value, struct search_bounds);
} unwind_search SEC(".maps");

/* Stores the bounds and reads them back: the same values, unknown to the verifier. */
static __always_inline void forget_bounds(struct search_bounds* b, __u32* lo, __u32* hi) {
  *(volatile __u32*)&b->lo = *lo;
  *(volatile __u32*)&b->hi = *hi;
  *lo = *(volatile __u32*)&b->lo;
  *hi = *(volatile __u32*)&b->hi;
}

/* The table row that covers `pc` in this process, packed into a __u64 (a row of kind NONE = 0: no mapping,
 * no table, or a gap). A global function: the verifier checks its searches once, not on every path of the
 * walk that calls it, which keeps the program's load time down. */
__noinline __u64 find_unwind_row(__u32 scratch_key, __u32 tgid, __u64 pc) {
  struct search_bounds* bounds = bpf_map_lookup_elem(&unwind_search, &scratch_key);
  if (!bounds) return 0;
  const struct jfrbpf_unwind_process* proc = bpf_map_lookup_elem(&unwind_processes, &tgid);
  if (!proc) return 0;
  /* Last mapping with start <= pc. */
  __u32 lo = 0, hi = proc->mapping_count;
  if (hi > JFRBPF_UNWIND_MAX_MAPPINGS) hi = JFRBPF_UNWIND_MAX_MAPPINGS;
  for (int i = 0; i < JFRBPF_UNWIND_MAPPING_SEARCH_STEPS && lo < hi; i++) {
    forget_bounds(bounds, &lo, &hi);
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
    forget_bounds(bounds, &left, &right);
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
  const struct jfrbpf_unwind_row* row = bpf_map_lookup_elem(&unwind_rows, &index);
  if (!row) return 0;
  __u64 packed = 0;
  __builtin_memcpy(&packed, row, sizeof(*row));
  return packed;
}

/* Bumped by the loader after every change to the three maps above: rows remembered under another epoch may
 * have changed (a library unmapped, another mapped at its address, a table's rows reused). */
__u64 unwind_epoch = 0;

/* A direct-mapped cache, per CPU and scratch, of the row each native pc was found in: the two hash lookups
 * and two binary searches of find_unwind_row cost about 200 ns a frame, while a thread's native frames are
 * mostly the same few call sites sample after sample (a Java thread's are its start and JavaCalls). */
#define ROW_CACHE_INDEX_BITS 10

struct row_cache_entry {
  __u64 pc;
  __u64 epoch;
  __u64 row; /* find_unwind_row's answer, kind NONE included */
  __u32 tgid;
  __u32 reserved;
};

struct row_cache {
  struct row_cache_entry entries[1u << ROW_CACHE_INDEX_BITS]; /* 32 KiB: the most a per-CPU value may hold */
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, SCRATCHES); /* one per scratch */
  __type(key, __u32);
  __type(value, struct row_cache);
} row_caches SEC(".maps");

static __always_inline struct row_cache_entry* row_cache_entry(const struct walk* w, __u64 pc) {
  __u32 key = w->scratch_key;
  struct row_cache* cache = bpf_map_lookup_elem(&row_caches, &key);
  return cache ? &cache->entries[(pc * 0x9e3779b97f4a7c15ull) >> (64 - ROW_CACHE_INDEX_BITS)] : 0;
}

static __always_inline bool row_cache_hit(const struct walk* w, const struct row_cache_entry* entry, __u64 pc) {
  return entry->pc == pc && entry->tgid == w->tgid && entry->epoch == w->unwind_epoch;
}

/* find_unwind_row through the cache; `w->unwind_epoch` is the epoch read when the walk began. */
static __always_inline __u64 cached_unwind_row(struct walk* w, __u64 pc) {
  struct row_cache_entry* entry = row_cache_entry(w, pc);
  if (!entry) return find_unwind_row(w->scratch_key, w->tgid, pc);
  if (row_cache_hit(w, entry, pc)) return entry->row;
  __u64 row = find_unwind_row(w->scratch_key, w->tgid, pc);
  entry->pc = pc;
  entry->tgid = w->tgid;
  entry->epoch = w->unwind_epoch;
  entry->row = row;
  return row;
}

/* The cached row for pc if it is one of the kinds that unwind a plain frame (CFA from rsp or rbp, PLT stub):
 * what a walk can apply without a helper call. */
static __always_inline bool cached_plain_row(const struct walk* w, __u64 pc, __u64* row) {
  const struct row_cache_entry* entry = row_cache_entry(w, pc);
  if (!entry || !row_cache_hit(w, entry, pc)) return false;
  *row = entry->row;
  __u8 kind = ((const struct jfrbpf_unwind_row*)row)->kind;
  return kind == JFRBPF_UNWIND_CFA_RSP || kind == JFRBPF_UNWIND_CFA_RBP || kind == JFRBPF_UNWIND_PLT;
}

/* Whether the top frame, in a CLONE row, is the child's: the one the syscall returned 0 to, in rax. The
 * registers the thread saved when it entered the kernel for the syscall hold that result from its exit on,
 * and nothing in the row changes rax; they are the walked thread's only where it runs this program, so a walk
 * of another thread (from an iterator) takes the parent's side. */
static __always_inline bool in_clone_child(const struct sampler_scratch* s) {
  if (s->walk.depth != 1 || bpf_get_current_pid_tgid() != ((__u64)s->walk.tgid << 32 | s->record.tid)) return false;
  struct pt_regs* regs = (struct pt_regs*)bpf_task_pt_regs(bpf_get_current_task_btf());
  return BPF_CORE_READ(regs, ax) == 0;
}

/* Applies a table row. Returns -1 to stop (reason set), 0 to continue, 1 when there was no usable row. */
static __always_inline int apply_unwind_row(struct sampler_scratch* s, const struct jfrbpf_unwind_row* row) {
  struct walk* w = &s->walk;
  struct stack_window* win = &s->window;
  __u64 pair[2];
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
      if (!read_stack_u64(win, w->sp + JFRBPF_UCONTEXT_RIP_OFFSET, &pc) ||
          !read_stack_u64(win, w->sp + JFRBPF_UCONTEXT_RSP_OFFSET, &sp) ||
          !read_stack_u64(win, w->sp + JFRBPF_UCONTEXT_RBP_OFFSET, &fp)) {
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
    case JFRBPF_UNWIND_CLONE:
      if (in_clone_child(s)) {
        walk_stop(w, JFRBPF_WALK_ROOT);
        return -1;
      }
      cfa = w->sp + (__u64)row->cfa_param * 8;
      break;
    default:
      return 1;
  }
  if (cfa <= w->sp) {
    walk_stop(w, JFRBPF_WALK_BAD_FRAME);
    return -1;
  }
  __u64 caller_pc = 0;
  __u64 caller_fp = w->fp;
  if (row->rbp_slot == -2) {
    /* The usual frame: saved rbp right below the return address, both in one read. */
    if (!read_stack_pair(win, cfa - 16, pair)) {
      walk_stop(w, JFRBPF_WALK_READ_FAULT);
      return -1;
    }
    caller_fp = pair[0];
    caller_pc = pair[1];
  } else {
    if (!read_stack_u64(win, cfa - 8, &caller_pc)) {
      walk_stop(w, JFRBPF_WALK_READ_FAULT);
      return -1;
    }
    if (row->rbp_slot == JFRBPF_UNWIND_RBP_LOST) {
      caller_fp = 0;
    } else if (row->rbp_slot != JFRBPF_UNWIND_RBP_UNCHANGED &&
               !read_stack_u64(win, cfa + (__s64)row->rbp_slot * 8, &caller_fp)) {
      walk_stop(w, JFRBPF_WALK_READ_FAULT);
      return -1;
    }
  }
  w->pc = caller_pc;
  w->sp = cfa;
  w->fp = caller_fp;
  return 0;
}

/* Frame-pointer step; false when rbp does not look like a frame pointer of this stack. */
static __always_inline bool unwind_by_frame_pointer(struct sampler_scratch* s) {
  struct walk* w = &s->walk;
  __u64 fp = w->fp;
  if (fp == 0 || (fp & 7) != 0 || fp < w->sp || fp - w->sp > NATIVE_MAX_FRAME_BYTES) return false;
  __u64 frame[2]; /* saved rbp, return address */
  if (!read_stack_pair(&s->window, fp, frame)) return false;
  w->pc = frame[1];
  w->sp = fp + 16;
  w->fp = frame[0];
  return true;
}

#endif
