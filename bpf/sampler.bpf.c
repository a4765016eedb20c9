// SPDX-License-Identifier: GPL-2.0
/* CPU-time sampler: runs on every PERF_COUNT_SW_CPU_CLOCK overflow of every online CPU, keeps the ones that
 * interrupted a profiled process, and sends each one (kernel and user stack) to userspace. Nothing is
 * aggregated here: JFR wants every sample with its own timestamp. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "sampler_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load. */
const volatile __u32 user_stack_depth = 512;

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4096);
  __type(key, __u32); /* tgid */
  __type(value, struct jfrbpf_target);
} targets SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 8 << 20); /* resized by the loader */
} samples SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, JFRBPF_COUNTER_COUNT);
  __type(key, __u32);
  __type(value, __u64);
} counters SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32); /* tid */
  __type(value, struct jfrbpf_thread_loss);
} thread_losses SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct jfrbpf_sample_record);
} scratch SEC(".maps");

static __always_inline void count(enum jfrbpf_counter which) {
  __u32 key = which;
  __u64* value = bpf_map_lookup_elem(&counters, &key);
  if (value) *value += 1;
}

static __always_inline void charge_loss(__u32 tgid, __u32 tid) {
  struct jfrbpf_thread_loss* loss = bpf_map_lookup_elem(&thread_losses, &tid);
  if (loss) {
    __sync_fetch_and_add(&loss->lost_ringbuf_full, 1);
    return;
  }
  struct jfrbpf_thread_loss fresh = {.tgid = tgid, .lost_ringbuf_full = 1};
  if (bpf_map_update_elem(&thread_losses, &tid, &fresh, BPF_NOEXIST) == 0) return;
  loss = bpf_map_lookup_elem(&thread_losses, &tid); /* raced with another CPU */
  if (loss) {
    __sync_fetch_and_add(&loss->lost_ringbuf_full, 1);
    return;
  }
  count(JFRBPF_COUNTER_LOST_THREAD_MAP_FULL);
}

SEC("perf_event")
int on_cpu_clock(struct bpf_perf_event_data* ctx) {
  count(JFRBPF_COUNTER_OVERFLOWS);
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tgid = pid_tgid >> 32;
  __u32 tid = (__u32)pid_tgid;
  if (tgid == 0 || !bpf_map_lookup_elem(&targets, &tgid)) {
    count(JFRBPF_COUNTER_NOT_TARGET);
    return 0;
  }

  __u32 zero = 0;
  struct jfrbpf_sample_record* rec = bpf_map_lookup_elem(&scratch, &zero);
  if (!rec) {
    count(JFRBPF_COUNTER_LOST_SCRATCH);
    charge_loss(tgid, tid);
    return 0;
  }
  rec->time_ns = bpf_ktime_get_ns();
  rec->tgid = tgid;
  rec->tid = tid;
  rec->cpu = bpf_get_smp_processor_id();
  rec->flags = 0;
  rec->reserved = 0;

  long kbytes = 0;
  /* x86_64 kernel text lives in the upper half of the address space: an interrupted pc there means the
   * overflow hit kernel mode, so there is a kernel stack to take. */
  if ((long)ctx->regs.ip < 0) {
    rec->flags |= JFRBPF_SAMPLE_IN_KERNEL;
    kbytes = bpf_get_stack(ctx, rec->pcs, JFRBPF_MAX_KERNEL_FRAMES * sizeof(__u64), 0);
    if (kbytes < 0) {
      rec->flags |= JFRBPF_SAMPLE_KERNEL_STACK_FAILED;
      count(JFRBPF_COUNTER_KERNEL_STACK_FAILED);
      kbytes = 0;
    }
  }
  __u32 kdepth = (__u32)kbytes / sizeof(__u64);
  if (kdepth > JFRBPF_MAX_KERNEL_FRAMES) kdepth = JFRBPF_MAX_KERNEL_FRAMES;
  rec->kernel_depth = kdepth;

  __u32 udepth_max = user_stack_depth;
  if (udepth_max > JFRBPF_MAX_USER_FRAMES) udepth_max = JFRBPF_MAX_USER_FRAMES;
  long ubytes = bpf_get_stack(ctx, &rec->pcs[kdepth], udepth_max * sizeof(__u64), BPF_F_USER_STACK);
  if (ubytes <= 0) {
    rec->flags |= JFRBPF_SAMPLE_USER_STACK_FAILED;
    count(JFRBPF_COUNTER_USER_STACK_FAILED);
    ubytes = 0;
  } else if (ubytes >= (long)(udepth_max * sizeof(__u64))) {
    rec->flags |= JFRBPF_SAMPLE_USER_STACK_TRUNCATED;
    count(JFRBPF_COUNTER_USER_STACK_TRUNCATED);
  }
  __u32 udepth = (__u32)ubytes / sizeof(__u64);
  if (udepth > JFRBPF_MAX_USER_FRAMES) udepth = JFRBPF_MAX_USER_FRAMES;
  rec->user_depth = udepth;

  __u64 size = JFRBPF_SAMPLE_HEADER_SIZE + (__u64)(kdepth + udepth) * sizeof(__u64);
  if (size > sizeof(*rec)) size = sizeof(*rec);
  if (bpf_ringbuf_output(&samples, rec, size, 0) != 0) {
    count(JFRBPF_COUNTER_LOST_RINGBUF_FULL);
    charge_loss(tgid, tid);
    return 0;
  }
  count(JFRBPF_COUNTER_SAMPLED);
  return 0;
}
