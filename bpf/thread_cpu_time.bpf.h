/* How many samples a thread is due, by the kernel's own accounting of its CPU time (se.sum_exec_runtime,
 * what /proc/PID/task/TID/schedstat shows) rather than by the clock that fired: one per sampling period of
 * CPU time. A perf clock counts a thread's time only between the scheduler's perf hooks, so it misses part
 * of every context switch: a thread that runs 20 us at a time and then sleeps gets ~25 % fewer task-clock
 * periods than its CPU time on this project's VM, per-CPU clocks miss it alike, and a clock may also count
 * time the kernel does not (stolen by the hypervisor). So the clock only says when to look: a sample stands
 * for the whole periods of CPU time the thread used since its previous one, rounded to the nearest (written
 * as that many events, so that readers that count samples see its CPU time too), and the rest goes with its
 * next sample. A plain sampler misses on average half a period of every thread, the part after its last
 * sample, which adds up over many threads: each thread starts its count a random fraction of a period early,
 * so that its count is its CPU time in expectation (within a period either way). The kernel updates
 * sum_exec_runtime at switches and ticks, so a running thread's figure may lag by up to a tick: a clock that
 * fires after a period of the thread's CPU time is trusted for that period as long as the samples stand for
 * at most cpu_time_lead_ns (a tick) more than the kernel's figure. */
#ifndef JFRBPF_THREAD_CPU_TIME_BPF_H
#define JFRBPF_THREAD_CPU_TIME_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* Set by the loader before load. */
const volatile __u64 sampling_period_ns = 10000000;
const volatile __u64 cpu_time_lead_ns = 10000000;
/* Clocks per CPU (--sampler cpu): an overflow is no evidence of a thread's CPU time by itself. */
const volatile bool per_cpu_clocks = false;
/* Set by the loader while recording: a longer period that a host-wide sample budget (--max-rate) asks for,
 * 0 when none. The clocks the loader opened are slowed down alike; inherited ones (threads started since)
 * keep firing at sampling_period_ns, and their overflows in between take no sample. */
__u64 budget_period_ns = 0;

struct thread_cpu_time {
  __u64 base;      /* sum_exec_runtime when the thread's recording began (0 if it started during it), less
                    * its head start (mod 2^64) */
  __u64 accounted; /* CPU time its samples (written or lost) stood for so far */
  __u64 switches;  /* its context switches (nvcsw + nivcsw) at its last sample */
  __u64 head_period; /* the sampling period its head start was drawn for */
  __u32 started;
  __u32 cpu;       /* where its last sample was taken */
};

/* The CPU time of each thread of a process when its recording began, as userspace read it
 * (/proc/PID/task/TID/schedstat): where a thread older than the recording starts its count, so that its
 * samples stand for exactly what it used since. Taken (and deleted) at the thread's first sample. */
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32); /* tid */
  __type(value, struct jfrbpf_thread_cpu_seed);
} thread_cpu_seeds SEC(".maps");

/* Where the count of a thread older than its process's recording starts: what userspace read when the
 * recording began, or else (a thread it missed) one period back, which its clock just counted. */
static __always_inline __u64 older_thread_base(__u32 tgid, __u32 tid, __u64 runtime) {
  struct jfrbpf_thread_cpu_seed* seed = bpf_map_lookup_elem(&thread_cpu_seeds, &tid);
  if (seed && seed->tgid == tgid && seed->cpu_time_ns <= runtime) {
    __u64 base = seed->cpu_time_ns;
    bpf_map_delete_elem(&thread_cpu_seeds, &tid);
    return base;
  }
  return runtime - (runtime < sampling_period_ns ? runtime : sampling_period_ns);
}

/* Freed with the task, so exited threads leave nothing behind, and a reused thread id starts afresh. */
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct thread_cpu_time);
} thread_cpu_times SEC(".maps");

/* Samples at most one record stands for: a thread that no clock caught for long (per-CPU clocks) catches up
 * over its next records. */
#define MAX_SAMPLE_PERIODS 64

/* The current thread's count, started at its first look (a sample, or its end), with its head start drawn
 * for `period`; 0 when it has no storage (this CPU is already in it). `added_ns`: when its process became a
 * target. */
static __always_inline struct thread_cpu_time* thread_count(struct task_struct* task, __u32 tgid, __u32 tid,
                                                            __u64 added_ns, __u64 runtime, __u64 period) {
  struct thread_cpu_time* t = bpf_task_storage_get(&thread_cpu_times, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!t) return 0;
  if (!t->started) {
    t->started = 1;
    t->base = task->start_time >= added_ns ? 0 : older_thread_base(tgid, tid, runtime);
    t->head_period = 0;
  }
  /* The head start is uniform in [0, period): half a period on average, also after a --max-rate budget
   * changed the period (by a draw over the difference). */
  if (t->head_period != period) {
    bool longer = period > t->head_period;
    __u64 difference = longer ? period - t->head_period : t->head_period - period;
    __u64 draw = (difference >> 16) * (bpf_get_prandom_u32() >> 16);
    t->base = longer ? t->base - draw : t->base + draw;
    t->head_period = period;
  }
  return t;
}

static __always_inline __u64 current_period(void) {
  __u64 budget = *(volatile __u64*)&budget_period_ns;
  return budget > sampling_period_ns ? budget : sampling_period_ns;
}

/* How many sampling periods the current thread's sample stands for (its CPU time: that many periods of
 * `*period_ns`), 0 when its samples already stand for all of its CPU time (take none). */
static __always_inline __u64 sample_periods(__u32 tgid, __u32 tid, __u64 added_ns, __u64* period_ns) {
  struct task_struct* task = bpf_get_current_task_btf();
  __u64 runtime = task->se.sum_exec_runtime;
  __u64 period = current_period();
  *period_ns = period;
  struct thread_cpu_time* t = thread_count(task, tgid, tid, added_ns, runtime, period);
  if (!t) return 1; /* the clock's period */
  /* A per-thread clock fires after a period of the thread's own CPU time; a per-CPU clock after a period of
   * the CPU's, which the thread used all of only if it ran there without a switch since its last sample. */
  __u64 switches = task->nvcsw + task->nivcsw;
  __u32 cpu = bpf_get_smp_processor_id();
  bool clock_evidence = !per_cpu_clocks || (t->cpu == cpu && t->switches == switches);
  t->switches = switches;
  t->cpu = cpu;
  __s64 owed = (__s64)(runtime - t->base - t->accounted);
  __u64 periods = 0;
  if (owed >= (__s64)(period / 2)) {
    periods = ((__u64)owed + period / 2) / period;
  } else if (clock_evidence && owed + (__s64)cpu_time_lead_ns >= (__s64)period) {
    periods = 1;
  } else {
    return 0;
  }
  if (periods > MAX_SAMPLE_PERIODS) periods = MAX_SAMPLE_PERIODS;
  t->accounted += periods * period;
  return periods;
}

/* Per-CPU clocks: the whole periods of CPU time the ending thread used that no clock caught, 0 when none.
 * A clock only catches a thread that runs as it fires, and a thread whose wake-ups line up with the clock's
 * ticks (its timer sleeps expire with them, within their slack) may run unseen for hundreds of periods; a
 * later sample would stand for them, but at its end nothing is later. Whole periods only: with the head
 * start uniform in [0, period), the thread's count is then its CPU time in expectation. */
static __always_inline __u64 unsampled_periods(__u32 tgid, __u32 tid, __u64 added_ns, __u64* period_ns) {
  struct task_struct* task = bpf_get_current_task_btf();
  __u64 runtime = task->se.sum_exec_runtime;
  __u64 period = current_period();
  *period_ns = period;
  struct thread_cpu_time* t = thread_count(task, tgid, tid, added_ns, runtime, period);
  if (!t) return 0;
  __s64 owed = (__s64)(runtime - t->base - t->accounted);
  if (owed < (__s64)period) return 0;
  __u64 periods = (__u64)owed / period;
  t->accounted += periods * period;
  return periods;
}

#endif
