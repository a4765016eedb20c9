/* State of one user-stack walk, kept in per-CPU scratch memory so that the per-frame step (a bpf_loop
 * callback) can reach it, together with the record being built and this process's JVM layout. Each CPU has
 * one scratch for the sampler and one for method traces: a uprobe program can be interrupted by the
 * sampler's perf event, or preempted by another thread's uprobe hit, on the same CPU. */
#ifndef JFRBPF_WALKER_STATE_BPF_H
#define JFRBPF_WALKER_STATE_BPF_H

#include "hotspot_abi.h"
#include "method_timer_abi.h"
#include "sampler_abi.h"
#include "unwind_abi.h"

struct walk {
  __u64 pc; /* registers of the frame being unwound */
  __u64 sp;
  __u64 fp;
  __u64 java_thread; /* JavaThread* of the sampled thread, 0 if not a Java thread */
  __u32 tgid;
  __u32 depth;
  __u32 max_depth;
  __u16 end;        /* enum jfrbpf_walk_end once the walk stopped */
  __u8 has_jvm;     /* `jvm` below is valid */
  __u8 anchor_used; /* a JavaFrameAnchor may be used once per walk */
  __u8 exact_pc;    /* pc is an interrupted instruction (top or signal frame), not a return address */
  __u8 busy;        /* the trace scratch is in use (a preempted uprobe program still owns it) */
  __u8 scratch_key; /* SCRATCH_SAMPLER or SCRATCH_TRACE: where this walk lives */
  __u8 reserved[5];
};

/* A trace record is `trace` followed by `record`, sent as one contiguous range. */
struct sampler_scratch {
  struct walk walk;
  struct jfrbpf_hotspot jvm;
  struct jfrbpf_trace_head trace;
  struct jfrbpf_sample_record record;
};
_Static_assert(__builtin_offsetof(struct sampler_scratch, record) ==
                   __builtin_offsetof(struct sampler_scratch, trace) + JFRBPF_TRACE_HEAD_SIZE,
               "a trace record must be contiguous");

#define SCRATCH_SAMPLER 0
#define SCRATCH_TRACE 1

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, struct sampler_scratch);
} scratch SEC(".maps");

static __always_inline struct sampler_scratch* get_scratch(__u32 key) {
  return bpf_map_lookup_elem(&scratch, &key);
}

/* Reads one user word; false on a fault. */
static __always_inline bool read_user_u64(__u64 address, __u64* value) {
  return bpf_probe_read_user(value, sizeof(*value), (const void*)address) == 0;
}

/* Two adjacent user words in one read (a saved rbp and the return address above it, for example): user
 * reads dominate the walk's cost, so frames are unwound with as few of them as possible. */
static __always_inline bool read_user_pair(__u64 address, __u64 words[2]) {
  return bpf_probe_read_user(words, 2 * sizeof(__u64), (const void*)address) == 0;
}

static __always_inline bool read_user_s32(__u64 address, __s32* value) {
  return bpf_probe_read_user(value, sizeof(*value), (const void*)address) == 0;
}

/* Flags for bpf_ringbuf_output: the consumer drains on its own short timer, so a record wakes it only when
 * the ring is a quarter full — a wakeup per record would cost several microseconds each. */
static __always_inline __u64 ringbuf_wakeup_flags(void* ring) {
  __u64 pending = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA);
  __u64 size = bpf_ringbuf_query(ring, BPF_RB_RING_SIZE);
  return pending > size / 4 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* Ends the walk with `reason`; returns the bpf_loop "stop" value. */
static __always_inline long walk_stop(struct walk* w, enum jfrbpf_walk_end reason) {
  w->end = reason;
  return 1;
}

#endif
