/* Record layout of the benchmark's frame-pointer reference sampler (fp_stack.bpf.c), shared with the
 * benchmark driver that reads it. */
#ifndef JFRBPF_BENCH_FP_STACK_ABI_H
#define JFRBPF_BENCH_FP_STACK_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The kernel's perf callchain limit (kernel.perf_event_max_stack, 127 by default) caps both stacks. */
#define FP_MAX_FRAMES 127

struct fp_record {
  __u64 time_ns;
  __u32 tgid;
  __u32 tid;
  __u32 user_frames;
  __u32 kernel_frames;
  __u64 data[2 * FP_MAX_FRAMES]; /* user pcs, then kernel pcs: a record is as long as its stacks */
};

#define FP_HEADER_SIZE 24

#endif
