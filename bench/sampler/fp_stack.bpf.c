// SPDX-License-Identifier: GPL-2.0
/* Benchmark-only reference sampler: what a sample costs with the kernel's own frame-pointer walk
 * (bpf_get_stack with BPF_F_USER_STACK) instead of jfrbpf's mixed-mode walker. It does the same
 * surrounding work as on_cpu_clock — target lookup, timestamp, kernel stack when the overflow hit kernel
 * mode, one ring-buffer record per sample — so that the difference is the user-stack walk. */
#include "vmlinux.h"
/* vmlinux.h first: the helpers' declarations use its types. */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fp_stack_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* Set before load: 0 (wake the consumer when it waits, as jfrbpf does) or BPF_RB_NO_WAKEUP (the consumer
 * polls on a timer), to tell the cost of the wakeup from the cost of the walk. */
const volatile __u64 ringbuf_flags = 0;

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 64);
  __type(key, __u32); /* tgid */
  __type(value, __u32);
} fp_targets SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct fp_record);
} fp_scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 16 << 20);
} fp_records SEC(".maps");

SEC("perf_event")
int fp_sample(struct bpf_perf_event_data* ctx) {
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tgid = pid_tgid >> 32;
  if (!bpf_map_lookup_elem(&fp_targets, &tgid)) return 0;
  __u32 zero = 0;
  struct fp_record* rec = bpf_map_lookup_elem(&fp_scratch, &zero);
  if (!rec) return 0;
  rec->time_ns = bpf_ktime_get_ns();
  rec->tgid = tgid;
  rec->tid = (__u32)pid_tgid;

  long user = bpf_get_stack(ctx, rec->data, FP_MAX_FRAMES * sizeof(__u64), BPF_F_USER_STACK);
  __u32 udepth = user > 0 ? (__u32)user / sizeof(__u64) : 0;
  if (udepth > FP_MAX_FRAMES) udepth = FP_MAX_FRAMES;
  __u32 kdepth = 0;
  if ((long)ctx->regs.ip < 0) { /* kernel mode was interrupted */
    long kernel = bpf_get_stack(ctx, &rec->data[udepth], FP_MAX_FRAMES * sizeof(__u64), 0);
    if (kernel > 0) kdepth = (__u32)kernel / sizeof(__u64);
  }
  if (kdepth > FP_MAX_FRAMES) kdepth = FP_MAX_FRAMES;
  rec->user_frames = udepth;
  rec->kernel_frames = kdepth;
  __u64 size = FP_HEADER_SIZE + ((__u64)udepth + kdepth) * sizeof(__u64);
  if (size > sizeof(*rec)) size = sizeof(*rec);
  bpf_ringbuf_output(&fp_records, rec, size, ringbuf_flags);
  return 0;
}

/* The floor: what any perf_event program costs here (the target lookup and the kernel's own accounting),
 * to read the two samplers' figures against. */
SEC("perf_event")
int fp_floor(struct bpf_perf_event_data* ctx) {
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  if (!bpf_map_lookup_elem(&fp_targets, &tgid)) return 0;
  return 0;
}

/* Nothing at all: what the perf events themselves cost the sampled threads (the timer interrupt, the overflow,
 * running a BPF program), the floor that jfrbpf's cost per sample is read against. */
SEC("perf_event")
int fp_empty(struct bpf_perf_event_data* ctx) {
  return 0;
}

/* The price of one bpf_probe_read_user here, which stack walkers pay several times per frame: 64 reads
 * of 8 bytes up the interrupted thread's stack. */
#define FP_READS 64

SEC("perf_event")
int fp_reads(struct bpf_perf_event_data* ctx) {
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  if (!bpf_map_lookup_elem(&fp_targets, &tgid)) return 0;
  if ((long)ctx->regs.ip < 0) return 0; /* kernel mode: no user stack pointer at hand */
  __u64 sp = ctx->regs.sp, sum = 0;
  for (int i = 0; i < FP_READS; i++) {
    __u64 word = 0;
    bpf_probe_read_user(&word, sizeof(word), (const void*)(sp + i * sizeof(word)));
    sum += word;
  }
  return sum == 1; /* keeps the reads */
}
