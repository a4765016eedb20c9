/* State of one user-stack walk, kept in per-CPU scratch memory so that the per-frame step (a bpf_loop
 * callback) can reach it, together with the record being built, this process's JVM layout and a copy of
 * the stack memory read so far. Each CPU has one scratch for the sampler and one for method traces: a
 * uprobe program can be interrupted by the sampler's perf event, or preempted by another thread's uprobe
 * hit, on the same CPU. */
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
  __u32 tgid;
  __u32 depth;
  __u32 max_depth;
  __u16 end;        /* enum jfrbpf_walk_end once the walk stopped */
  __u8 has_jvm;     /* `jvm` below is valid */
  __u8 anchor_used; /* a JavaFrameAnchor may be used once per walk */
  __u8 exact_pc;    /* pc is an interrupted instruction (top or signal frame), not a return address */
  __u8 busy;        /* the trace or off-CPU scratch is in use (a preempted program still owns it) */
  __u8 scratch_key; /* SCRATCH_SAMPLER, SCRATCH_TRACE or SCRATCH_OFF_CPU: where this walk lives */
  __u8 frozen_walked; /* the walk went into a continuation's frozen frames (once per walk) */
  __u8 reserved[4];
  __u64 thread_register; /* r15 where the walk began in Java code, else 0 (see walk_java_thread) */
  __u64 seq; /* numbers the walks of this scratch */
  __u64 unwind_epoch; /* of the native unwind maps when the walk began (see native_frames.bpf.h) */
  __u64 blob_stamp;   /* what a code blob checked in this walk is stamped with (see hotspot_frames.bpf.h) */
  /* In a stack chunk's frozen frames (bpf/frozen_frames.bpf.h): */
  __u64 chunk;          /* the chunk the walk is in; 0 on a thread's stack */
  __u64 chunk_end;      /* where its frames end */
  __u64 barrier_sp;     /* the registers at the return barrier, where the continuation's entry frame */
  __u64 barrier_fp;     /* follows the frozen frames */
  __u64 fp_absolute_sp; /* an interpreted frame's fp in a chunk is relative to where it is kept, except */
                        /* at this sp, where the interpreted callee's unwind made it absolute */
};

/* User reads dominate a walk's cost: on this project's VM one bpf_probe_read_user costs about 70 ns for a
 * word and 250 ns for 4 KiB, so the walker copies the stack a window at a time and unwinds frames from the
 * copy. A read that runs past the end of the stack's mapping fails, after a fault that costs ~1 us; 4 KiB
 * windows never did on the stacks measured (JVM and C threads: glibc keeps the thread's TLS and descriptor
 * above its outermost frame), 16 KiB ones would. The thread is stopped in its own sample, so the copy stays
 * true for the walk. */
#define STACK_WINDOW_BYTES 4096
#define STACK_READ_MAX 80 /* the largest single stack read: an interpreted frame's ten words */

/* Whole words, read as words: BPF forbids unaligned loads, so a copy out of a byte array costs a load, a shift
 * and an or per byte. Every stack slot the walker reads is a word of an aligned stack. */
struct stack_window {
  __u64 low; /* the copy holds user memory [low, high); empty when low == high */
  __u64 high;
  __u64 words[(STACK_WINDOW_BYTES + STACK_READ_MAX) / 8]; /* a read at any offset inside the window fits */
};

/* What the walker knows of the CodeBlob of a pc: read from its header (`words`: the HeapBlock header in front
 * of it, then the CodeBlob fields the walker uses, at most JFRBPF_BLOB_HEADER_MAX bytes, each field inside one
 * aligned word: both checked by the loader), or taken from the blob cache. */
struct blob_header {
  __u64 blob; /* the CodeBlob's address; the copy starts heap_block_header_size bytes before it */
  __u64 code_begin;
  __s32 frame_size;
  __s32 frame_complete; /* bytes from code_begin; <= 0 if the blob has no prologue */
  __u32 top;            /* enum blob_top: how its frame unwinds where it may be half built (hotspot_frames.bpf.h) */
  __u32 reserved;
  __u64 words[JFRBPF_BLOB_HEADER_MAX / 8 + 1];
};

/* What the scratch last looked up about a process: kept until the maps it came from change, because on a
 * CPU the samples of one process mostly follow each other and two hash lookups and the layout's copy cost a
 * few hundred nanoseconds. */
struct known_process {
  __u64 epoch;    /* process_epoch (sampler.bpf.c) when the fields below were looked up */
  __u64 added_ns; /* its jfrbpf_target's */
  __u32 tgid;  /* 0: nothing known */
  __u8 target; /* in the targets map */
  __u8 jvm;    /* in the JVM layout map: the scratch's `jvm` holds its layout */
  __u8 reserved[2];
};

/* A trace record is `trace` followed by `record`, sent as one contiguous range. */
struct sampler_scratch {
  struct known_process known;
  struct walk walk;
  struct jfrbpf_hotspot jvm;
  struct stack_window window;
  struct blob_header blob;
  struct jfrbpf_trace_head trace;
  struct jfrbpf_sample_record record;
};
_Static_assert(__builtin_offsetof(struct sampler_scratch, record) ==
                   __builtin_offsetof(struct sampler_scratch, trace) + JFRBPF_TRACE_HEAD_SIZE,
               "a trace record must be contiguous");

#define SCRATCH_SAMPLER 0
#define SCRATCH_TRACE 1
#define SCRATCH_OFF_CPU 2
#define SCRATCHES 3

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, SCRATCHES);
  __type(key, __u32);
  __type(value, struct sampler_scratch);
} scratch SEC(".maps");

/* One per-CPU counter for every outcome (bpf/sampler_abi.h). */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, JFRBPF_COUNTER_COUNT);
  __type(key, __u32);
  __type(value, __u64);
} counters SEC(".maps");

static __always_inline void count_n(enum jfrbpf_counter which, __u64 n) {
  __u32 key = which;
  __u64* value = bpf_map_lookup_elem(&counters, &key);
  if (value) *value += n;
}

static __always_inline void count(enum jfrbpf_counter which) { count_n(which, 1); }

static __always_inline struct sampler_scratch* get_scratch(__u32 key) {
  return bpf_map_lookup_elem(&scratch, &key);
}

/* Reads one user word; false on a fault. */
static __always_inline bool read_user_u64(__u64 address, __u64* value) {
  return bpf_probe_read_user(value, sizeof(*value), (const void*)address) == 0;
}

/* Copies the window of stack that holds [address, address + size), `address` aligned. It starts at `address`
 * and is as long as the stack's mapping allows: the read fails as a whole if it runs past the end of the
 * mapping (or into a page never touched), so then only the rest of the page is read, or the bytes asked for. */
static __always_inline bool fill_stack_window(struct stack_window* win, __u64 address, __u32 size) {
  win->low = win->high = 0;
  if (bpf_probe_read_user(win->words, STACK_WINDOW_BYTES, (const void*)address) == 0) {
    win->low = address;
    win->high = address + STACK_WINDOW_BYTES;
    return true;
  }
  __u64 length = (((address + size - 1) | 4095) + 1) - address;
  if (length >= STACK_WINDOW_BYTES) length = size;
  if (length > STACK_WINDOW_BYTES) return false; /* for the verifier: size <= STACK_READ_MAX */
  if (bpf_probe_read_user(win->words, length, (const void*)address) != 0) return false;
  win->low = address;
  win->high = address + length;
  return true;
}

/* fill_stack_window for the window of scratch `scratch_key`. A global function, verified once instead of at
 * each of the walker's many inlined stack reads; a refill costs a read of up to 4 KiB anyway. */
__noinline int refill_stack_window(__u32 scratch_key, __u64 address, __u32 size) {
  struct sampler_scratch* s = get_scratch(scratch_key);
  return s && fill_stack_window(&s->window, address, size);
}

/* The words of the stack at [address, address + size) in the window, refilling it if needed; 0 on a fault
 * or an unaligned address (no frame of an x86-64 stack is unaligned). `size` is a constant multiple of 8 of
 * at most STACK_READ_MAX. `win` is a scratch's window. */
static __always_inline const __u64* stack_words(struct stack_window* win, __u64 address, __u32 size) {
  if ((address & 7) != 0) return 0;
  if (address < win->low || address + size > win->high || address + size < address) {
    const struct sampler_scratch* s = (const void*)win - __builtin_offsetof(struct sampler_scratch, window);
    if (!refill_stack_window(s->walk.scratch_key, address, size)) return 0;
  }
  __u64 index = (address - win->low) / 8;
  if (index > STACK_WINDOW_BYTES / 8) return 0; /* cannot happen: tells the verifier */
  return &win->words[index];
}

static __always_inline bool read_stack_u64(struct stack_window* win, __u64 address, __u64* value) {
  const __u64* words = stack_words(win, address, sizeof(*value));
  if (!words) return false;
  *value = words[0];
  return true;
}

/* A saved rbp and the return address above it. */
static __always_inline bool read_stack_pair(struct stack_window* win, __u64 address, __u64 pair[2]) {
  const __u64* words = stack_words(win, address, 2 * sizeof(__u64));
  if (!words) return false;
  pair[0] = words[0];
  pair[1] = words[1];
  return true;
}

/* How often a scratch checks the fill of its ring, as a mask of its walk numbers: set by the loader from the
 * ring's size, so that the records written between two checks fit easily in a quarter of it. */
const volatile __u64 ringbuf_check_mask = 0;

/* Flags for bpf_ringbuf_output: the consumer drains on its own short timer, so a record wakes it only when
 * the ring is a quarter full — a wakeup per record would cost several microseconds each. The check itself
 * costs ~0.2 us here (the ring's positions are written by the consumer's CPU), so it is not made for
 * every record. */
static __always_inline __u64 ringbuf_wakeup_flags(void* ring, __u64 walk_seq) {
  if ((walk_seq & ringbuf_check_mask) != 0) return BPF_RB_NO_WAKEUP;
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
