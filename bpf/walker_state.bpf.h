/* State of one user-stack walk, kept in per-CPU scratch memory so that the per-frame step (a bpf_loop
 * callback) can reach it, together with the record being built and this process's JVM layout. */
#ifndef JFRBPF_WALKER_STATE_BPF_H
#define JFRBPF_WALKER_STATE_BPF_H

#include "hotspot_abi.h"
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
  __u8 reserved[7];
};

struct sampler_scratch {
  struct walk walk;
  struct jfrbpf_hotspot jvm;
  struct jfrbpf_sample_record record;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sampler_scratch);
} scratch SEC(".maps");

static __always_inline struct sampler_scratch* get_scratch(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&scratch, &zero);
}

/* Reads one user word; false on a fault. */
static __always_inline bool read_user_u64(__u64 address, __u64* value) {
  return bpf_probe_read_user(value, sizeof(*value), (const void*)address) == 0;
}

static __always_inline bool read_user_s32(__u64 address, __s32* value) {
  return bpf_probe_read_user(value, sizeof(*value), (const void*)address) == 0;
}

/* Ends the walk with `reason`; returns the bpf_loop "stop" value. */
static __always_inline long walk_stop(struct walk* w, enum jfrbpf_walk_end reason) {
  w->end = reason;
  return 1;
}

#endif
