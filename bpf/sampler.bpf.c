// SPDX-License-Identifier: GPL-2.0
/* CPU-time sampler. on_cpu_clock runs on every overflow of the clocks the loader attaches it to: by default
 * one PERF_COUNT_SW_TASK_CLOCK event per thread of each profiled process (counting that thread's CPU time
 * only), or, with --sampler cpu, one PERF_COUNT_SW_CPU_CLOCK event per online CPU, of whose overflows it
 * keeps those that interrupted a profiled process. It walks the user stack (native, interpreted, compiled
 * and stub frames) and the kernel stack, and sends each sample to userspace. Nothing is aggregated here: JFR
 * wants every sample with its own timestamp. Every way a sample can be lost has its own counter.
 * The object also holds:
 *   on_thread_exit   with --sampler cpu, an ending thread's CPU time no clock caught, into its loss ledger;
 *   on_code_freed    the uprobes on a watched JVM's code heap frees (the blob and code bytes caches no longer
 *                    hold);
 * from method_timer.bpf.h the method-trace uprobe, whose invocations' stacks the same walker takes, and from
 * off_cpu.bpf.h the scheduler hooks and task iterators of --off-cpu. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "method_timer.bpf.h"
#include "off_cpu.bpf.h"
#include "sampler_maps.bpf.h"
#include "stack_walk.bpf.h"
#include "thread_context.bpf.h"
#include "thread_cpu_time.bpf.h"
#include "virtual_threads.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Fills the walk's start registers with the user-mode registers of the interrupted thread. */
static __always_inline bool start_registers(struct bpf_perf_event_data* ctx, struct sampler_scratch* s) {
  struct walk* w = &s->walk;
  /* x86_64 kernel text lives in the upper half of the address space: an interrupted pc there means the
   * overflow hit kernel mode, and the user registers are the ones saved at kernel entry. */
  if ((long)ctx->regs.ip >= 0) {
    w->pc = ctx->regs.ip;
    w->sp = ctx->regs.sp;
    w->fp = ctx->regs.bp;
    s->record.top_bcp_register = ctx->regs.r13;
    keep_thread_register(s, ctx->regs.r15);
    return false;
  }
  struct pt_regs* user = (struct pt_regs*)bpf_task_pt_regs(bpf_get_current_task_btf());
  w->pc = BPF_CORE_READ(user, ip);
  w->sp = BPF_CORE_READ(user, sp);
  w->fp = BPF_CORE_READ(user, bp);
  s->record.top_bcp_register = BPF_CORE_READ(user, r13);
  keep_thread_register(s, BPF_CORE_READ(user, r15));
  return true;
}

SEC("perf_event")
int on_cpu_clock(struct bpf_perf_event_data* ctx) {
  __u64 entered_ns = measure_sample_cost ? bpf_ktime_get_ns() : 0;
  count(JFRBPF_COUNTER_OVERFLOWS);
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tgid = pid_tgid >> 32;
  __u32 tid = (__u32)pid_tgid;
  __u32 scratch_key = SCRATCH_SAMPLER;
  struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s) {
    if (tgid == 0 || !bpf_map_lookup_elem(&targets, &tgid)) {
      count(JFRBPF_COUNTER_NOT_TARGET);
      return 0;
    }
    count(JFRBPF_COUNTER_LOST_SCRATCH);
    charge_loss(tgid, tid, 1, sampling_period_ns);
    record_cost(entered_ns);
    return 0;
  }
  /* A process that started after its pid became a target only has the pid, reused once the target exited
   * and before userspace let it go (per-CPU clocks see every process): not ours. */
  if (tgid == 0 || !load_process(s, tgid, true) ||
      bpf_get_current_task_btf()->group_leader->start_time > s->known.added_ns) {
    count(JFRBPF_COUNTER_NOT_TARGET);
    return 0;
  }
  __u64 period_ns = 0;
  __u64 periods = sample_periods(tgid, tid, s->known.added_ns, &period_ns);
  if (periods == 0) {
    count(JFRBPF_COUNTER_AHEAD_OF_CPU_TIME);
    return 0;
  }
  __u64 cpu_time_ns = periods * period_ns;
  struct jfrbpf_sample_record* rec = &s->record;
  /* When measuring, the entry's clock read also stamps the sample: measuring adds only the closing read. */
  begin_walk(s, scratch_key, tgid, tid, measure_sample_cost ? entered_ns : bpf_ktime_get_ns());
  rec->cpu_time_ns = cpu_time_ns;
  rec->periods = periods;
  if (start_registers(ctx, s)) rec->flags |= JFRBPF_SAMPLE_IN_KERNEL;
  note_continuation(s);
  __u32 udepth = run_walk(s, &scratch_key);
  end_count(s->walk.end);
  if (udepth == 0) count(JFRBPF_COUNTER_USER_STACK_FAILED);

  __u32 kdepth = 0;
  if (rec->flags & JFRBPF_SAMPLE_IN_KERNEL) {
    long kbytes = bpf_get_stack(ctx, &rec->data[udepth * 2], JFRBPF_MAX_KERNEL_FRAMES * sizeof(__u64), 0);
    if (kbytes < 0) {
      rec->flags |= JFRBPF_SAMPLE_KERNEL_STACK_FAILED;
      count(JFRBPF_COUNTER_KERNEL_STACK_FAILED);
    } else {
      kdepth = (__u32)kbytes / sizeof(__u64);
    }
  }
  if (kdepth > JFRBPF_MAX_KERNEL_FRAMES) kdepth = JFRBPF_MAX_KERNEL_FRAMES;
  rec->kernel_depth = kdepth;
  read_thread_context(bpf_get_current_task_btf(), rec, udepth * 2 + kdepth);

  __u64 size = JFRBPF_SAMPLE_RECORD_SIZE(udepth, kdepth, rec->context_size);
  if (size > sizeof(*rec)) size = sizeof(*rec);
  if (bpf_ringbuf_output(&samples, rec, size, ringbuf_wakeup_flags(&samples, s->walk.seq)) != 0) {
    count(JFRBPF_COUNTER_LOST_RINGBUF_FULL);
    charge_loss(tgid, tid, periods, cpu_time_ns);
    record_cost(entered_ns);
    return 0;
  }
  count(JFRBPF_COUNTER_SAMPLED);
  count_n(JFRBPF_COUNTER_SAMPLE_PERIODS, periods);
  record_cost(entered_ns);
  return 0;
}

/* --sampler cpu: a target thread that ends charges the whole periods of CPU time no clock caught
 * (thread_cpu_time.bpf.h) to its loss ledger, so that its samples and losses still add up to its CPU time.
 * Runs in the ending thread's context. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_thread_exit, struct task_struct* task) {
  __u32 tgid = task->tgid;
  const struct jfrbpf_target* target = tgid ? bpf_map_lookup_elem(&targets, &tgid) : 0;
  if (!target || task->group_leader->start_time > target->added_ns) return 0;
  __u32 tid = task->pid;
  __u64 period_ns = 0;
  __u64 periods = unsampled_periods(tgid, tid, target->added_ns, &period_ns);
  if (periods == 0) return 0;
  count_n(JFRBPF_COUNTER_SAMPLE_PERIODS, periods);
  struct jfrbpf_thread_loss* loss = thread_loss(tgid, tid);
  if (!loss) {
    count_n(JFRBPF_COUNTER_LOST_THREAD_MAP_FULL, periods);
    return 0;
  }
  __sync_fetch_and_add(&loss->unsampled, periods);
  __sync_fetch_and_add(&loss->unsampled_cpu_ns, periods * period_ns);
  return 0;
}

/* Entered before the code heap of a JVM whose frees are watched frees a block (its CodeHeap::deallocate and
 * deallocate_tail): the blob cache's entries no longer hold. */
SEC("uprobe")
int on_code_freed(void* ctx) {
  __sync_fetch_and_add(&code_epoch, 1);
  count(JFRBPF_COUNTER_CODE_FREES);
  return 0;
}

/* The method trace uprobe shares the walker (for the stacks of traced invocations), and so do the off-CPU
 * programs (for the stacks threads waited with). */
