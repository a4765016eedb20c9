/* --off-cpu: where the target's threads wait. A scheduler tracepoint and one on the way back to user mode,
 * both loaded only when the loader asks for off-CPU records:
 * - sched_switch, as a target thread leaves the CPU: when and in which state (sleeping, uninterruptible,
 *   preempted). As one comes back: how long it was off, and whether that interval is picked. A picked
 *   interval takes the thread's kernel stack there (bpf_get_task_stack: it is not running, so its stack is
 *   still the one it waited with) and waits for the user stack.
 * - rseq_update, on the thread's own return to user mode after a switch (glibc registers an rseq area for
 *   every thread, and the kernel then passes here after each switch): its user stack has not moved since it
 *   left the CPU, and this is the first moment its own address space can be read, so the walker takes it
 *   here and the record goes out.
 * And an iterator over tasks, run as the recording stops (after the hooks are detached), for the waits still
 * going on then. No waiting thread passes through its own context, but any thread of its process reads the
 * same memory: run by the JVM agent's thread (the loader hands it the iterator), it walks their user stacks
 * too; run by the loader, for processes without an agent, it sends their kernel frames only.
 * Picking by off-CPU time keeps the data rate bounded at any switch rate: a wait of at least `interval` is
 * always recorded, standing for itself; shorter ones add up per thread, and the one that takes the sum past
 * the next stride is recorded, standing for that stride. Strides are drawn at random from
 * [interval/2, 3*interval/2), so that waits that alternate with a period (A, B, A, B…) cannot alias onto one
 * of them: a short wait is picked with a probability about its share of a stride. What a wait stands for
 * is the kernel's own figure (accounted_off_time), so that each thread's weights add up to what schedstat
 * says it spent off CPU, to within one stride. Each record also carries the thread's run delay (time runnable,
 * waiting for a CPU) since its previous record, read from the kernel's own count (what schedstat shows), so
 * that these too add up to the kernel's figure per thread. */
#ifndef JFRBPF_OFF_CPU_BPF_H
#define JFRBPF_OFF_CPU_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "sampler_maps.bpf.h"
#include "stack_walk.bpf.h"
#include "thread_context.bpf.h"
#include "thread_cpu_time.bpf.h"
#include "virtual_threads.bpf.h"
#include "walker_state.bpf.h"

/* Set by the loader before load: the mean off-CPU time per record; 0 records every interval. */
const volatile __u64 off_cpu_interval_ns = 1000000;
/* Set by the loader as the recording stops, just before it reads the threads' CPU time: where the window
 * ends. Waits that end later are cut there (flush_off_cpu then closes those still going on). */
__u64 off_cpu_stop_ns = 0;
/* The process prime_off_cpu prepares, and its threads it found no storage for (the allocator's cache ran
 * dry): the loader runs it again. */
__u32 off_cpu_prime_tgid = 0;
__u64 off_cpu_prime_added_ns = 0; /* its jfrbpf_target.added_ns-to-be */
__u64 off_cpu_prime_failures = 0;
/* Passes of flush_off_cpu that ran to their end: the loader waits for those it handed to agents. */
__u64 off_cpu_flush_passes = 0;

#define TASK_RUNNING_STATE 0x0000
#define TASK_UNINTERRUPTIBLE_STATE 0x0002

struct off_cpu_thread {
  __u64 off_ns;  /* when it left the CPU; 0 while it runs */
  __u32 state;   /* enum jfrbpf_off_cpu_state, as it left */
  __u32 pending; /* a picked interval waits for the thread's user stack */
  __u32 seen;    /* a switch of the thread was seen: off_ns is 0 only while it runs */
  __u32 run_delay_based; /* reported_run_delay holds where its count starts */
  __u64 reported_run_delay; /* the kernel's run delay of the thread as of its last record sent */
  __u64 switches;  /* its context switches (nvcsw + nivcsw) as it last left the CPU */
  __u64 flushed;   /* flush_off_cpu took it (the agent's pass and the loader's may meet) */
  __u64 in_ns;      /* when it last came on a CPU (0: not seen yet) */
  __u64 in_runtime; /* its CPU time (se.sum_exec_runtime) then */
  __u64 carry_ns;  /* short waits since the last pick */
  __u64 stride_ns; /* what they must add up to for the next pick (0: not drawn yet) */
  /* The picked interval. */
  __u64 start_ns;
  __u64 duration_ns;
  __u64 weight_ns;
  __u32 pending_state;
  __u32 kernel_depth;
  __u64 kernel_stack[JFRBPF_MAX_KERNEL_FRAMES];
};

/* Freed with the task: an exited thread leaves nothing behind. */
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct off_cpu_thread);
} off_cpu_threads SEC(".maps");

/* Each target thread's run delay (schedstat's) as the loader read it at the window's end, by tid: records
 * sent after the end count up to there, not up to when they go out (see run_delay_now). */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 65536);
  __type(key, __u32);
  __type(value, __u64);
} run_delay_ends SEC(".maps");

/* After the window's end nothing changes: flush_off_cpu closes every wait still going on then. */
static __always_inline bool window_ended(__u64 now) {
  __u64 stop = *(volatile __u64*)&off_cpu_stop_ns;
  return stop != 0 && now > stop;
}

/* The target entry of the process `task` belongs to, if it is one: not a process that merely reuses a
 * target's pid (see on_cpu_clock). */
static __always_inline const struct jfrbpf_target* target_of(struct task_struct* task) {
  __u32 tgid = task->tgid;
  if (tgid == 0) return 0;
  const struct jfrbpf_target* target = bpf_map_lookup_elem(&targets, &tgid);
  if (!target || task->group_leader->start_time > target->added_ns) return 0;
  return target;
}

static __always_inline void charge_off_cpu_loss(__u32 tgid, __u32 tid, __u64 weight_ns) {
  struct jfrbpf_thread_loss* loss = thread_loss(tgid, tid);
  if (!loss) return;
  __sync_fetch_and_add(&loss->lost_off_cpu, 1);
  __sync_fetch_and_add(&loss->lost_off_cpu_ns, weight_ns);
}

/* Uniform in [interval/2, 3*interval/2): interval < 2^32 ns (the loader caps it), so the product fits. */
static __always_inline __u64 draw_stride(__u64 interval) {
  return interval / 2 + (((__u64)bpf_get_prandom_u32() * interval) >> 32);
}

/* The off-CPU time a wait of `duration` of thread `t` stands for when picked, 0 when not (see the top). */
static __always_inline __u64 pick_weight(struct off_cpu_thread* t, __u64 duration) {
  __u64 interval = off_cpu_interval_ns;
  if (duration >= interval) return duration;
  if (t->stride_ns == 0) t->stride_ns = draw_stride(interval);
  t->carry_ns += duration;
  __u64 weight = 0;
  /* The carry stays below a stride plus a wait (< 5 half intervals) and each pass takes at least half an
   * interval: 5 passes bring it below the stride. */
#pragma unroll
  for (int i = 0; i < 5; i++) {
    if (t->carry_ns < t->stride_ns) break;
    t->carry_ns -= t->stride_ns;
    weight += t->stride_ns;
    t->stride_ns = draw_stride(interval);
  }
  return weight;
}

/* The kernel's count of the time `task` spent runnable, waiting for a CPU (sched_info.run_delay: schedstat's
 * second field); 0 in a kernel without it. */
static __always_inline __u64 kernel_run_delay(struct task_struct* task) {
  if (!bpf_core_field_exists(task->sched_info)) return 0;
  return BPF_CORE_READ(task, sched_info.run_delay);
}

/* The run delay of `task` a record sent now counts up to: the kernel's count, or after the window's end
 * what the loader read then (a thread that ran again since has more). */
static __always_inline __u64 run_delay_now(struct task_struct* task) {
  __u64 now = kernel_run_delay(task);
  if (*(volatile __u64*)&off_cpu_stop_ns == 0) return now;
  __u32 tid = task->pid;
  __u64* end = bpf_map_lookup_elem(&run_delay_ends, &tid);
  return end && *end < now ? *end : now;
}

/* Where the run delays of thread `task` start counting, the first time its storage `t` is seen (primed
 * threads have it from the recording's start): from its birth for a thread started since its process became
 * a target, else from now. */
static __always_inline void base_run_delay(struct task_struct* task, struct off_cpu_thread* t,
                                           const struct jfrbpf_target* target) {
  if (t->run_delay_based) return;
  t->reported_run_delay = task->start_time > target->added_ns ? 0 : kernel_run_delay(task);
  t->run_delay_based = 1;
}

static __always_inline void switched_out(struct task_struct* prev, const struct jfrbpf_target* target, bool preempt,
                                         unsigned int prev_state, __u64 now) {
  struct off_cpu_thread* t = bpf_task_storage_get(&off_cpu_threads, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!t) {
    count(JFRBPF_COUNTER_OFF_CPU_NO_STORAGE);
    return;
  }
  base_run_delay(prev, t, target);
  t->off_ns = now;
  t->switches = prev->nvcsw + prev->nivcsw;
  t->seen = 1;
  if (preempt || prev_state == TASK_RUNNING_STATE) {
    t->state = JFRBPF_OFF_CPU_PREEMPTED;
  } else {
    t->state = (prev_state & TASK_UNINTERRUPTIBLE_STATE) ? JFRBPF_OFF_CPU_UNINTERRUPTIBLE : JFRBPF_OFF_CPU_SLEEPING;
  }
}

/* Whether the kernel passes through rseq_update when `task` returns to user mode (it has an rseq area). */
static __always_inline bool has_rseq(struct task_struct* task) {
  if (!bpf_core_field_exists(task->rseq)) return true; /* a layout this file does not know: assume glibc's */
  return BPF_CORE_READ(task, rseq) != 0;
}

/* Builds the record of `task`'s picked interval (in `t`) in scratch `s` after its user frames (`udepth` of
 * them), and sends it; the interval is no longer pending either way. Its run delay is what the kernel
 * counted since the thread's last record sent: a lost record's goes with the next one. */
/* `in_its_process`: the current address space is `task`'s, so that its thread context can be read. */
static __always_inline void send_off_cpu(struct task_struct* task, struct sampler_scratch* s, struct off_cpu_thread* t,
                                         __u32 udepth, bool in_its_process) {
  struct jfrbpf_sample_record* rec = &s->record;
  rec->flags |= JFRBPF_SAMPLE_OFF_CPU | JFRBPF_SAMPLE_IN_KERNEL;
  rec->off_cpu_state = (__u16)t->pending_state;
  rec->cpu_time_ns = t->weight_ns;
  rec->off_cpu_ns = t->duration_ns;
  __u64 run_delay = run_delay_now(task);
  rec->run_delay_ns = run_delay > t->reported_run_delay ? run_delay - t->reported_run_delay : 0;
  __u32 kdepth = t->kernel_depth;
  if (kdepth > JFRBPF_MAX_KERNEL_FRAMES) kdepth = JFRBPF_MAX_KERNEL_FRAMES;
  if (udepth > JFRBPF_MAX_USER_FRAMES) udepth = JFRBPF_MAX_USER_FRAMES;
  if (kdepth == 0 || bpf_probe_read_kernel(&rec->data[udepth * 2], kdepth * sizeof(__u64), t->kernel_stack) != 0) {
    kdepth = 0;
    rec->flags |= JFRBPF_SAMPLE_KERNEL_STACK_FAILED;
  }
  rec->kernel_depth = kdepth;
  if (in_its_process) {
    read_thread_context(task, rec, udepth * 2 + kdepth);
  } else {
    skip_thread_context(rec);
  }
  t->pending = 0;
  __u64 size = JFRBPF_SAMPLE_RECORD_SIZE(udepth, kdepth, rec->context_size);
  if (size > sizeof(*rec)) size = sizeof(*rec);
  if (bpf_ringbuf_output(&samples, rec, size, ringbuf_wakeup_flags(&samples, s->walk.seq)) != 0) {
    count(JFRBPF_COUNTER_OFF_CPU_LOST_RINGBUF_FULL);
    charge_off_cpu_loss(rec->tgid, rec->tid, t->weight_ns);
    return;
  }
  t->reported_run_delay = run_delay;
  count(JFRBPF_COUNTER_OFF_CPU_SAMPLED);
}

/* Takes scratch SCRATCH_OFF_CPU for a record of `task`'s picked interval, or charges the interval as lost
 * when a preempted program on this CPU still has it. */
static __always_inline struct sampler_scratch* claim_off_cpu_scratch(struct task_struct* task, struct off_cpu_thread* t) {
  struct sampler_scratch* s = get_scratch(SCRATCH_OFF_CPU);
  if (!s) return 0;
  if (s->walk.busy) {
    count(JFRBPF_COUNTER_OFF_CPU_LOST_BUSY);
    charge_off_cpu_loss(task->tgid, task->pid, t->weight_ns);
    t->pending = 0;
    return 0;
  }
  s->walk.busy = 1;
  return s;
}

/* A thread that cannot be walked in its own context: its record goes out now, with its kernel frames only. */
static __always_inline void send_without_user_stack(struct task_struct* task, struct off_cpu_thread* t) {
  struct sampler_scratch* s = claim_off_cpu_scratch(task, t);
  if (!s) return;
  load_process(s, task->tgid, true);
  begin_walk(s, SCRATCH_OFF_CPU, task->tgid, task->pid, t->start_ns);
  s->record.top_bcp_register = 0;
  s->record.user_depth = 0;
  s->record.walk_end = JFRBPF_WALK_NOT_TAKEN;
  count(JFRBPF_COUNTER_OFF_CPU_NO_USER_STACK);
  send_off_cpu(task, s, t, 0, false);
  s->walk.busy = 0;
}

/* Where the current off-CPU interval of `task` began, and its state then, when its leaving was not seen: it
 * has been off CPU since its process became a target, or (a thread started since) since it was created,
 * runnable. */
static __always_inline __u64 unseen_start(struct task_struct* task, const struct jfrbpf_target* target, __u32* state) {
  __u64 born = task->start_time;
  bool young = born > target->added_ns;
  *state = young ? JFRBPF_OFF_CPU_PREEMPTED : JFRBPF_OFF_CPU_UNKNOWN;
  return young ? born : target->added_ns;
}

/* Picks the interval `t` was off CPU for, from `start` (in `state`) to `end`, and if picked keeps it
 * pending with `task`'s kernel stack. Returns whether it was picked. */
/* The off-CPU time a wait stands for, by the kernel's own accounting (what schedstat shows, and what CPU
 * samples stand for): the thread's wall time since it last came on a CPU less the CPU time the kernel
 * accounted to it since. It differs from the wait's span by what the scheduler's clock counts differently
 * from these hooks: a thread woken onto an idle CPU is charged CPU time from its wake-up (the run queue's
 * clock is not read again before it runs), ~10 us per wake-up on this project's VM, which made an fsync
 * loop's spans add up to 5 % more than its off-CPU time, and a futex ping-pong's to 10 % more. Summed over
 * a thread, these weights come to exactly what the kernel says it spent off CPU. Before the thread's first
 * arrival is seen: the span. */
static __always_inline __u64 accounted_off_time(struct task_struct* task, struct off_cpu_thread* t, __u64 start,
                                                __u64 end) {
  __u64 runtime = task->se.sum_exec_runtime;
  __u64 since_in = t->in_ns;
  __u64 ran = runtime - t->in_runtime;
  t->in_ns = end;
  t->in_runtime = runtime;
  if (since_in == 0 || since_in > start) return end - start;
  __u64 wall = end - since_in;
  return wall > ran ? wall - ran : 0;
}

static __always_inline bool pick_interval(struct task_struct* task, struct off_cpu_thread* t, __u64 start, __u32 state,
                                          __u64 end) {
  if (end <= start) return false;
  __u64 duration = end - start;
  count(JFRBPF_COUNTER_OFF_CPU_INTERVALS);
  __u64 off = accounted_off_time(task, t, start, end);
  if (off == 0) return false;
  __u64 weight = pick_weight(t, off);
  if (weight == 0) return false;
  if (t->pending) {
    /* Back on the CPU and off again without reaching user mode (e.g. woken from one wait into another in
     * the kernel): the same user stack, so one record stands for both; it keeps the longer one's kernel
     * stack and state. */
    count(JFRBPF_COUNTER_OFF_CPU_MERGED);
    t->weight_ns += weight;
    if (duration <= t->duration_ns) return true;
    t->duration_ns = duration;
    t->pending_state = state;
  } else {
    t->start_ns = start;
    t->duration_ns = duration;
    t->weight_ns = weight;
    t->pending_state = state;
    t->pending = 1;
  }
  long bytes = bpf_get_task_stack(task, t->kernel_stack, sizeof(t->kernel_stack), 0);
  t->kernel_depth = bytes > 0 ? (__u32)bytes / sizeof(__u64) : 0;
  return true;
}

static __always_inline void switched_in(struct task_struct* next, const struct jfrbpf_target* target, __u64 now) {
  struct off_cpu_thread* t = bpf_task_storage_get(&off_cpu_threads, next, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!t) {
    count(JFRBPF_COUNTER_OFF_CPU_NO_STORAGE);
    return;
  }
  base_run_delay(next, t, target);
  __u32 state = t->state;
  __u64 start = t->off_ns;
  if (start == 0) {
    /* Seen before but not seen leaving (its storage could not be had then): the wait's start is unknown. */
    if (t->seen) return;
    start = unseen_start(next, target, &state);
  }
  t->off_ns = 0;
  t->seen = 1;
  if (pick_interval(next, t, start, state, now) && !has_rseq(next)) send_without_user_stack(next, t);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_sched_switch, bool preempt, struct task_struct* prev, struct task_struct* next,
             unsigned int prev_state) {
  __u64 now = bpf_ktime_get_ns();
  if (window_ended(now)) return 0;
  const struct jfrbpf_target* left = target_of(prev);
  if (left) switched_out(prev, left, preempt, prev_state, now);
  const struct jfrbpf_target* target = target_of(next);
  if (target) switched_in(next, target, now);
  return 0;
}

/* Sends the record of `task`'s picked interval with its user stack, walked from the user registers it
 * entered the kernel with. Only where the current address space is `task`'s (the walker reads user memory
 * through it): in its own context, or in another thread of its process. */
static __always_inline void send_with_user_stack(struct task_struct* task, struct off_cpu_thread* t) {
  struct sampler_scratch* s = claim_off_cpu_scratch(task, t);
  if (!s) return;
  __u32 tgid = task->tgid;
  __u32 scratch_key = SCRATCH_OFF_CPU;
  load_process(s, tgid, true);
  begin_walk(s, scratch_key, tgid, task->pid, t->start_ns);
  struct pt_regs* user = (struct pt_regs*)bpf_task_pt_regs(task);
  struct walk* w = &s->walk;
  w->pc = BPF_CORE_READ(user, ip);
  w->sp = BPF_CORE_READ(user, sp);
  w->fp = BPF_CORE_READ(user, bp);
  s->record.top_bcp_register = BPF_CORE_READ(user, r13);
  keep_thread_register(s, BPF_CORE_READ(user, r15));
  note_continuation(s);  /* a carrier that waits with a virtual thread mounted (pinned, or preempted) */
  __u32 udepth = run_walk(s, &scratch_key);
  end_count(w->end);
  send_off_cpu(task, s, t, udepth, true);
  w->busy = 0;
}

/* The thread returns to user mode after a switch, in its own context: its picked interval gets its user
 * stack, unchanged since it left the CPU. */
SEC("tp_btf/rseq_update")
int BPF_PROG(on_rseq_update, struct task_struct* task) {
  struct off_cpu_thread* t = bpf_task_storage_get(&off_cpu_threads, task, 0, 0);
  if (t && t->pending) send_with_user_stack(task, t);
  return 0;
}

/* Whether `task`'s user registers and stack are still those of the wait recorded for it at the window's
 * end: it is off CPU, and a thread seen leaving has not switched since (a thread never seen switching was
 * off CPU throughout the window). */
static __always_inline bool still_in_its_wait(struct task_struct* task, struct off_cpu_thread* t) {
  if (task->on_cpu) return false;
  if (!t->seen) return true;
  return t->off_ns != 0 && task->nvcsw + task->nivcsw == t->switches;
}

/* The record of `task`'s picked interval, as the recording stops: with its user stack if `walkable`. */
static __always_inline void send_closing(struct task_struct* task, struct off_cpu_thread* t, bool walkable) {
  if (walkable) {
    send_with_user_stack(task, t);
  } else {
    send_without_user_stack(task, t);
  }
}

/* As the recording stops, with the hooks above detached: each target thread still off CPU gets the wait it
 * is in, up to off_cpu_stop_ns (and a picked interval that still waits for its user stack goes out). Run by
 * a thread of the process (its JVM agent, over that process's threads), a thread still in the wait gets its
 * user stack too; else kernel frames only. */
SEC("iter/task")
int flush_off_cpu(struct bpf_iter__task* ctx) {
  struct task_struct* task = ctx->task;
  if (!task) {
    __sync_fetch_and_add(&off_cpu_flush_passes, 1);
    return 0;
  }
  const struct jfrbpf_target* target = target_of(task);
  if (!target) return 0;
  struct off_cpu_thread* t = bpf_task_storage_get(&off_cpu_threads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!t || __sync_val_compare_and_swap(&t->flushed, 0, 1) != 0) return 0;
  base_run_delay(task, t, target);
  bool walkable = bpf_get_current_task_btf()->tgid == task->tgid && still_in_its_wait(task, t);
  if (t->pending) send_closing(task, t, walkable);
  __u32 state = t->state;
  __u64 start = t->off_ns;
  if (start == 0) {
    /* Running as the hooks went (or it got on a CPU since), or, never seen switching, it either ran or
     * waited through the whole recording. */
    if (t->seen || task->on_cpu) return 0;
    start = unseen_start(task, target, &state);
    unsigned int now_state = task->__state;
    if (now_state == TASK_RUNNING_STATE) {
      state = JFRBPF_OFF_CPU_PREEMPTED;
    } else if (state == JFRBPF_OFF_CPU_UNKNOWN) {
      state = (now_state & TASK_UNINTERRUPTIBLE_STATE) ? JFRBPF_OFF_CPU_UNINTERRUPTIBLE : JFRBPF_OFF_CPU_SLEEPING;
    }
  }
  t->off_ns = 0;
  if (pick_interval(task, t, start, state, off_cpu_stop_ns)) send_closing(task, t, walkable);
  return 0;
}

/* Run by the loader just before a process becomes a target: storage for each of its threads up front, since
 * a thread without storage at its first switch loses the wait it was in, and storage cannot always be had
 * then: the allocator's per-CPU cache can run dry when dozens of threads come on a CPU for the first time at
 * once (all of a JVM's after a safepoint), and a task iterator (this one) preempted within a storage call
 * holds the CPU's storage lock while the scheduler switches. Hence before, not after, the process is a
 * target. */
SEC("iter/task")
int prime_off_cpu(struct bpf_iter__task* ctx) {
  struct task_struct* task = ctx->task;
  if (!task || task->tgid != off_cpu_prime_tgid) return 0;
  struct off_cpu_thread* t = bpf_task_storage_get(&off_cpu_threads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!t) {
    __sync_fetch_and_add(&off_cpu_prime_failures, 1);
    return 0;
  }
  /* The thread's accounting starts where its CPU time was read (thread_cpu_seeds), not where these hooks
   * first see it: the recorder reads the process's unwind tables in between (a JVM: a quarter second), and
   * a thread that ran then is first seen leaving the CPU, having waited before, unseen. */
  __u32 tid = task->pid;
  const struct jfrbpf_thread_cpu_seed* seed = bpf_map_lookup_elem(&thread_cpu_seeds, &tid);
  if (t->in_ns == 0 && seed && seed->tgid == task->tgid) {
    t->in_ns = off_cpu_prime_added_ns;
    t->in_runtime = seed->cpu_time_ns;
    t->reported_run_delay = seed->run_delay_ns;
    t->run_delay_based = 1;
  }
  return 0;
}

#endif
