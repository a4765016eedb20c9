/* The ABI between the method-timing uprobe programs and userspace (JEP 520 from outside the JVM).
 *
 * Instrumented bytecode calls two native stubs of the agent library, enter(int) and exit(int); each starts
 * with a 5-byte NOP, where userspace attaches a uprobe. The int is a hook index: a slot (the method's row in
 * the statistics map, unique over all JVMs of a recording) and what to do with the method. Per thread, the
 * enter program pushes (slot, entry time) on a shadow stack; the exit program pops the matching entry, adds
 * the duration to the slot's per-CPU statistics and, for a traced method at or above the threshold, sends a
 * trace record (the entry time, the duration and the caller's stack) to the traces ring buffer. */
#ifndef JFRBPF_METHOD_TIMER_ABI_H
#define JFRBPF_METHOD_TIMER_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "sampler_abi.h"

/* Hook index layout; jvmsupport/protocol/timing_records.h spells the same bits for the agent. */
#define JFRBPF_HOOK_SLOT_MASK 0x00ffffffu
#define JFRBPF_HOOK_TIMED (1u << 24)  /* jdk.MethodTiming: aggregate it */
#define JFRBPF_HOOK_TRACED (1u << 25) /* jdk.MethodTrace: one record per invocation over the threshold */

/* Invocations each thread can have open at once; deeper ones are counted, not timed. A power of two. */
#define JFRBPF_SHADOW_STACK_DEPTH 128
/* An exit looks this far down its thread's shadow stack for its own enter: entries above it are enters
 * whose exit never came (a constructor whose super() threw, a lost uprobe hit) and are dropped. */
#define JFRBPF_SHADOW_STACK_SEARCH 16

/* Per slot, per CPU: summed by userspace. min_ns starts at 0 meaning "no invocation yet". */
struct jfrbpf_method_stats {
  __u64 invocations;
  __u64 total_ns;
  __u64 min_ns;
  __u64 max_ns;
};

/* Per thread, in task-local storage (freed with the thread). */
struct jfrbpf_shadow_stack {
  __u32 depth; /* open invocations, including those beyond JFRBPF_SHADOW_STACK_DEPTH */
  __u32 seen;  /* 0 until the thread's first enter: then its process is marked in hooked_processes */
  __u32 slots[JFRBPF_SHADOW_STACK_DEPTH];
  __u64 entry_ns[JFRBPF_SHADOW_STACK_DEPTH];
};

/* One per-CPU counter each. Only what went wrong is counted on the hot path: a timed invocation shows in
 * its method's statistics, a trace in the ring buffer. */
enum jfrbpf_timer_counter {
  JFRBPF_TIMER_UNMATCHED_EXITS = 0,    /* exits without an enter (attached mid-call, lost enter): ignored */
  JFRBPF_TIMER_ORPHANED_ENTERS,        /* enters whose exit never came, dropped by a later exit */
  JFRBPF_TIMER_OVERFLOW,               /* enters beyond the shadow stack's depth: not timed */
  JFRBPF_TIMER_NO_SHADOW_STACK,        /* hits of a thread whose shadow stack could not be had (no memory) */
  JFRBPF_TIMER_BAD_SLOT,               /* hook index outside the statistics map */
  JFRBPF_TIMER_TRACES,                 /* trace records sent */
  JFRBPF_TIMER_TRACES_LOST_RINGBUF_FULL,
  JFRBPF_TIMER_TRACES_LOST_BUSY,       /* this CPU's trace scratch was in use (a preempted trace) */
  JFRBPF_TIMER_COUNTER_COUNT
};

/* A trace record in the traces ring buffer: this head, then a struct jfrbpf_sample_record whose time_ns is
 * the method's entry, with user frames only (kernel_depth 0); the top frame is the exit stub. */
struct jfrbpf_trace_head {
  __u64 duration_ns;
  __u32 hook_index; /* slot and flags, as the bytecode passed it */
  __u32 reserved;
};

#define JFRBPF_TRACE_HEAD_SIZE 16

#endif
