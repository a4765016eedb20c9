/* Method timing and tracing (JEP 520 semantics): uprobe programs on the agent's enter/exit stubs. Layouts
 * and the meaning of every counter: method_timer_abi.h. Included by sampler.bpf.c after its walker, so a
 * traced invocation's stack is walked exactly like a CPU sample's (Java, native and stub frames). */
#ifndef JFRBPF_METHOD_TIMER_BPF_H
#define JFRBPF_METHOD_TIMER_BPF_H

#include "method_timer_abi.h"
#include "walker_state.bpf.h"

/* Set by the loader before load: traced invocations shorter than this send no record. */
const volatile __u64 trace_threshold_ns = 0;

/* All map sizes are set by the loader; the defaults keep an unused timer small. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32); /* slot */
  __type(value, struct jfrbpf_method_stats);
} method_stats SEC(".maps");

/* Task-local: a pointer away from the thread, and gone when the thread is. Only threads that run
 * instrumented code take memory. */
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct jfrbpf_shadow_stack);
} shadow_stacks SEC(".maps");

/* Processes one of whose threads entered a timed or traced method: lets userspace judge the uprobe path
 * only once the probe was hit. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u32); /* tgid */
  __type(value, __u8);
} hooked_processes SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, JFRBPF_TIMER_COUNTER_COUNT);
  __type(key, __u32);
  __type(value, __u64);
} timer_counters SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4096); /* resized by the loader when tracing */
} traces SEC(".maps");

static __always_inline void timer_count(enum jfrbpf_timer_counter which, __u64 n) {
  __u32 key = which;
  __u64* value = bpf_map_lookup_elem(&timer_counters, &key);
  /* Atomic although per CPU: a uprobe program may be preempted by another thread's on the same CPU. */
  if (value) __sync_fetch_and_add(value, n);
}

/* The hook index is the stub's int argument: JNIEnv*, jclass, then jint, so the third integer register. */
static __always_inline __u32 hook_index(struct pt_regs* ctx) { return (__u32)ctx->dx; }

SEC("uprobe")
int on_method_enter(struct pt_regs* ctx) {
  __u32 hook = hook_index(ctx);
  struct jfrbpf_shadow_stack* stack =
      bpf_task_storage_get(&shadow_stacks, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!stack) {
    timer_count(JFRBPF_TIMER_NO_SHADOW_STACK, 1);
    return 0;
  }
  if (!stack->seen) {
    stack->seen = 1;
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    __u8 one = 1;
    bpf_map_update_elem(&hooked_processes, &tgid, &one, BPF_ANY);
  }
  __u32 depth = stack->depth;
  if (depth < JFRBPF_SHADOW_STACK_DEPTH) {
    __u32 at = depth & (JFRBPF_SHADOW_STACK_DEPTH - 1);
    stack->slots[at] = hook;
    stack->entry_ns[at] = bpf_ktime_get_ns(); /* last: the probe's own cost stays out of the duration */
  } else {
    timer_count(JFRBPF_TIMER_OVERFLOW, 1);
  }
  stack->depth = depth + 1;
  return 0;
}

static __always_inline void add_to_stats(__u32 slot, __u64 duration) {
  struct jfrbpf_method_stats* stats = bpf_map_lookup_elem(&method_stats, &slot);
  if (!stats) {
    timer_count(JFRBPF_TIMER_BAD_SLOT, 1);
    return;
  }
  __sync_fetch_and_add(&stats->invocations, 1);
  __sync_fetch_and_add(&stats->total_ns, duration);
  /* 0 means "none yet", so a (theoretical) 0 ns invocation counts as 1 ns. min and max are plain
   * read-compare-writes: a preemption between them can only lose an update to another thread's
   * invocation of the same method on the same CPU. */
  __u64 bounded = duration ? duration : 1;
  if (stats->min_ns == 0 || bounded < stats->min_ns) stats->min_ns = bounded;
  if (duration > stats->max_ns) stats->max_ns = duration;
}

static __always_inline void send_trace(struct pt_regs* ctx, __u32 hook, __u64 start, __u64 duration, __u64 pid_tgid) {
  __u32 scratch_key = SCRATCH_TRACE;
  struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s) return;
  struct walk* w = &s->walk;
  if (w->busy) {
    timer_count(JFRBPF_TIMER_TRACES_LOST_BUSY, 1);
    return;
  }
  w->busy = 1;
  __u32 tgid = pid_tgid >> 32;
  __u32 tid = (__u32)pid_tgid;
  struct jfrbpf_sample_record* rec = &s->record;
  rec->time_ns = start;
  rec->tgid = tgid;
  rec->tid = tid;
  rec->cpu = bpf_get_smp_processor_id();
  rec->kernel_depth = 0;
  rec->flags = 0;
  rec->reserved = 0;
  rec->top_bcp_register = 0; /* the top frame is the native exit stub */

  w->tgid = tgid;
  w->scratch_key = SCRATCH_TRACE;
  w->depth = 0;
  w->max_depth = user_stack_depth;
  w->end = JFRBPF_WALK_ROOT;
  w->anchor_used = 0;
  w->exact_pc = 1;
  w->java_thread = 0;
  const struct jfrbpf_hotspot* jvm = bpf_map_lookup_elem(&hotspot_jvms, &tgid);
  w->has_jvm = jvm != 0;
  if (jvm) {
    s->jvm = *jvm;
    rec->flags |= JFRBPF_SAMPLE_JVM;
    __u64* java_thread = bpf_map_lookup_elem(&java_threads, &tid);
    if (java_thread) w->java_thread = *java_thread;
  }
  w->pc = ctx->ip;
  w->sp = ctx->sp;
  w->fp = ctx->bp;

  bpf_loop(JFRBPF_MAX_USER_FRAMES, walk_step, &scratch_key, 0);
  __u32 udepth = w->depth;
  if (udepth > JFRBPF_MAX_USER_FRAMES) udepth = JFRBPF_MAX_USER_FRAMES;
  rec->user_depth = udepth;
  rec->walk_end = w->end;
  if (w->end == JFRBPF_WALK_DEPTH_LIMIT) rec->flags |= JFRBPF_SAMPLE_USER_STACK_TRUNCATED;
  if (udepth == 0) rec->flags |= JFRBPF_SAMPLE_USER_STACK_FAILED;

  s->trace.duration_ns = duration;
  s->trace.hook_index = hook;
  s->trace.reserved = 0;
  __u64 size = JFRBPF_TRACE_HEAD_SIZE + JFRBPF_SAMPLE_HEADER_SIZE + (__u64)udepth * 2 * sizeof(__u64);
  if (size > sizeof(s->trace) + sizeof(s->record)) size = sizeof(s->trace) + sizeof(s->record);
  if (bpf_ringbuf_output(&traces, &s->trace, size, ringbuf_wakeup_flags(&traces)) != 0) {
    timer_count(JFRBPF_TIMER_TRACES_LOST_RINGBUF_FULL, 1);
  } else {
    timer_count(JFRBPF_TIMER_TRACES, 1);
  }
  w->busy = 0;
}

SEC("uprobe")
int on_method_exit(struct pt_regs* ctx) {
  __u64 now = bpf_ktime_get_ns(); /* first: the probe's own cost stays out of the duration */
  __u32 hook = hook_index(ctx);
  struct jfrbpf_shadow_stack* stack = bpf_task_storage_get(&shadow_stacks, bpf_get_current_task_btf(), 0, 0);
  if (!stack || stack->depth == 0) {
    timer_count(JFRBPF_TIMER_UNMATCHED_EXITS, 1);
    return 0;
  }
  __u32 depth = stack->depth;
  if (depth > JFRBPF_SHADOW_STACK_DEPTH) {
    stack->depth = depth - 1; /* its enter was beyond the stack and counted as overflow */
    return 0;
  }
  int found = -1;
  for (int i = 0; i < JFRBPF_SHADOW_STACK_SEARCH; i++) {
    if ((__u32)i >= depth) break;
    __u32 at = (depth - 1 - i) & (JFRBPF_SHADOW_STACK_DEPTH - 1);
    if (stack->slots[at] == hook) {
      found = at;
      break;
    }
  }
  if (found < 0) {
    timer_count(JFRBPF_TIMER_UNMATCHED_EXITS, 1);
    return 0;
  }
  __u32 at = (__u32)found & (JFRBPF_SHADOW_STACK_DEPTH - 1);
  if (depth - 1 > at) timer_count(JFRBPF_TIMER_ORPHANED_ENTERS, depth - 1 - at);
  __u64 start = stack->entry_ns[at];
  stack->depth = at;
  __u64 duration = now > start ? now - start : 0;
  if (hook & JFRBPF_HOOK_TIMED) add_to_stats(hook & JFRBPF_HOOK_SLOT_MASK, duration);
  if ((hook & JFRBPF_HOOK_TRACED) && duration >= trace_threshold_ns) {
    send_trace(ctx, hook, start, duration, bpf_get_current_pid_tgid());
  }
  return 0;
}

#endif
