/* The one ABI between the BPF sampler and userspace: map value layouts, ring-buffer records and counter
 * indexes. Included by sampler.bpf.c (with vmlinux.h types) and by the loader (with linux/types.h). */
#ifndef JFRBPF_SAMPLER_ABI_H
#define JFRBPF_SAMPLER_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define JFRBPF_MAX_KERNEL_FRAMES 127
#define JFRBPF_MAX_USER_FRAMES 512
#define JFRBPF_MAX_FRAMES (JFRBPF_MAX_KERNEL_FRAMES + JFRBPF_MAX_USER_FRAMES)

/* Why an overflow did or did not become a sample record; one per-CPU counter each. */
enum jfrbpf_counter {
  JFRBPF_COUNTER_OVERFLOWS = 0,        /* every run of the program: perf overflows that reached BPF */
  JFRBPF_COUNTER_NOT_TARGET,           /* the interrupted task is not a profiled process */
  JFRBPF_COUNTER_SAMPLED,              /* a record reached the ring buffer */
  JFRBPF_COUNTER_LOST_RINGBUF_FULL,    /* ring buffer had no room: lost, charged to the thread */
  JFRBPF_COUNTER_LOST_SCRATCH,         /* per-CPU scratch unavailable (cannot happen; counted anyway) */
  JFRBPF_COUNTER_KERNEL_STACK_FAILED,  /* sampled, but the kernel stack could not be read */
  JFRBPF_COUNTER_USER_STACK_FAILED,    /* sampled, but the user stack could not be walked (record marked) */
  JFRBPF_COUNTER_USER_STACK_TRUNCATED, /* sampled, user stack deeper than the configured depth */
  JFRBPF_COUNTER_LOST_THREAD_MAP_FULL, /* lost and could not even be charged to its thread */
  JFRBPF_COUNTER_COUNT
};

/* Record flags. */
#define JFRBPF_SAMPLE_USER_STACK_FAILED (1u << 0)
#define JFRBPF_SAMPLE_USER_STACK_TRUNCATED (1u << 1)
#define JFRBPF_SAMPLE_KERNEL_STACK_FAILED (1u << 2)
#define JFRBPF_SAMPLE_IN_KERNEL (1u << 3) /* the overflow interrupted kernel mode */

/* Ring-buffer record: header, then kernel_depth kernel pcs, then user_depth user pcs (leaf first). */
struct jfrbpf_sample_record {
  __u64 time_ns; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC, the JFR tick clock */
  __u32 tgid;
  __u32 tid;
  __u32 cpu;
  __u16 kernel_depth;
  __u16 user_depth;
  __u32 flags;
  __u32 reserved;
  __u64 pcs[JFRBPF_MAX_FRAMES];
};

#define JFRBPF_SAMPLE_HEADER_SIZE 32

/* Per-thread loss ledger, so that for every thread overflows = samples written + samples lost. */
struct jfrbpf_thread_loss {
  __u32 tgid;
  __u32 reserved;
  __u64 lost_ringbuf_full;
};

/* Value of the targets map: which processes are profiled. */
struct jfrbpf_target {
  __u32 flags;
};

#endif
