/* The OpenTelemetry thread context (OTEP 4947) of the thread an event is taken in, copied into its record
 * after the stacks. The writer's thread is stopped while the program runs (a perf overflow, a uprobe, its
 * return to user mode), as the OTEP asks of readers: what is read is what the thread had set. Every read is
 * bounded, and one that faults marks the record with its cause (enum jfrbpf_context_status), never with a
 * guess. A process with no location here costs one map lookup. */
#ifndef JFRBPF_THREAD_CONTEXT_BPF_H
#define JFRBPF_THREAD_CONTEXT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "sampler_abi.h"
#include "walker_state.bpf.h"

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4096);
  __type(key, __u32); /* tgid */
  __type(value, struct jfrbpf_thread_context_location);
} thread_context_locations SEC(".maps");

#define CONTEXT_ATTRS_MAX (JFRBPF_CONTEXT_MAX_SIZE - JFRBPF_CONTEXT_HEADER_SIZE)
#define RECORD_STACK_WORDS (2 * JFRBPF_MAX_USER_FRAMES + JFRBPF_MAX_KERNEL_FRAMES)
/* glibc's TLS_DTV_UNALLOCATED: a DTV entry whose module's block this thread has not allocated yet. */
#define DTV_UNALLOCATED (~0ull)

/* The address of `task`'s otel_thread_ctx_v1, 0 when the thread has none (a dynamic block not allocated yet),
 * or a status other than JFRBPF_CONTEXT_NONE. x86_64's thread pointer is the fs base, which the kernel keeps in
 * the task for a thread that set it (glibc does, as it creates the thread). */
static __always_inline __u32 thread_context_variable(struct task_struct* task,
                                                      const struct jfrbpf_thread_context_location* at,
                                                      __u64* variable) {
  __u64 tp = BPF_CORE_READ(task, thread.fsbase);
  *variable = 0;
  if (at->module_id == 0) {
    *variable = tp + at->tp_offset;
    return JFRBPF_CONTEXT_NONE;
  }
  /* tcbhead_t.dtv (tp + 8) points at the entry of module 1; the word before entry 1's holds the entries'
   * count. Entries are 16 bytes: the block's address first. */
  __u64 dtv = 0, entries = 0, block = 0;
  if (!read_user_u64(tp + 8, &dtv) || !read_user_u64(dtv - 16, &entries)) return JFRBPF_CONTEXT_TLS_FAULT;
  if (at->module_id > entries) return JFRBPF_CONTEXT_NONE; /* its DTV predates the module: never touched it */
  if (!read_user_u64(dtv + 16 * at->module_id, &block)) return JFRBPF_CONTEXT_TLS_FAULT;
  if (block != 0 && block != DTV_UNALLOCATED) *variable = block + at->offset;
  return JFRBPF_CONTEXT_NONE;
}

/* Copies `task`'s context record to `rec`'s data from word `words` on (after its stacks), and says in the
 * record what it found. */
static __always_inline void read_thread_context(struct task_struct* task, struct jfrbpf_sample_record* rec,
                                                __u32 words) {
  rec->context_status = JFRBPF_CONTEXT_NONE;
  rec->context_size = 0;
  __u32 tgid = rec->tgid;
  const struct jfrbpf_thread_context_location* at = bpf_map_lookup_elem(&thread_context_locations, &tgid);
  if (!at) return;
  __u64 variable = 0, record = 0;
  __u32 status = thread_context_variable(task, at, &variable);
  if (status == JFRBPF_CONTEXT_NONE && variable != 0 && !read_user_u64(variable, &record)) {
    status = JFRBPF_CONTEXT_TLS_FAULT;
  }
  if (status != JFRBPF_CONTEXT_NONE || record == 0) {
    rec->context_status = status;
    return;
  }
  if (words > RECORD_STACK_WORDS) words = RECORD_STACK_WORDS;
  __u8* copy = (__u8*)&rec->data[words];
  if (bpf_probe_read_user(copy, JFRBPF_CONTEXT_HEADER_SIZE, (const void*)record) != 0) {
    rec->context_status = JFRBPF_CONTEXT_RECORD_FAULT;
    return;
  }
  if (copy[24] != 1) return; /* not valid: outside a context, or one being changed */
  __u32 attrs = copy[26] | (__u32)copy[27] << 8;
  if (attrs > CONTEXT_ATTRS_MAX) {
    rec->context_status = JFRBPF_CONTEXT_TOO_LARGE;
    rec->context_size = JFRBPF_CONTEXT_HEADER_SIZE;
    return;
  }
  if (attrs > 0 &&
      bpf_probe_read_user(copy + JFRBPF_CONTEXT_HEADER_SIZE, attrs, (const void*)(record + JFRBPF_CONTEXT_HEADER_SIZE)) != 0) {
    rec->context_status = JFRBPF_CONTEXT_ATTRS_FAULT;
    return;
  }
  rec->context_status = JFRBPF_CONTEXT_READ;
  rec->context_size = JFRBPF_CONTEXT_HEADER_SIZE + attrs;
}

/* A record sent where `rec`'s thread's memory is not the current address space: its context, if its process
 * keeps one, is not read. */
static __always_inline void skip_thread_context(struct jfrbpf_sample_record* rec) {
  __u32 tgid = rec->tgid;
  rec->context_status = bpf_map_lookup_elem(&thread_context_locations, &tgid) ? JFRBPF_CONTEXT_NOT_READ
                                                                              : JFRBPF_CONTEXT_NONE;
  rec->context_size = 0;
}

#endif
