/* Method tracing (JEP 520's jdk.MethodTrace): the uprobe program on the agent's trace stub. Layouts and the
 * meaning of every counter: method_timer_abi.h. A traced invocation's stack is walked exactly like a CPU
 * sample's (Java, native and stub frames), by the same walker. */
#ifndef JFRBPF_METHOD_TIMER_BPF_H
#define JFRBPF_METHOD_TIMER_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "method_timer_abi.h"
#include "sampler_maps.bpf.h"
#include "stack_walk.bpf.h"
#include "thread_context.bpf.h"
#include "virtual_threads.bpf.h"
#include "walker_state.bpf.h"

/* Processes whose trace probe was hit: lets userspace judge the uprobe path only once it was. */
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

static __always_inline void send_trace(struct pt_regs* ctx, __u32 hook, __u64 start, __u64 duration, __u64 detail,
                                       __u64 address, __u64 pid_tgid) {
  __u32 scratch_key = SCRATCH_TRACE;
  struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s) return;
  struct walk* w = &s->walk;
  if (w->busy) {
    timer_count(JFRBPF_TIMER_TRACES_LOST_BUSY, 1);
    return;
  }
  w->busy = 1;
  struct jfrbpf_sample_record* rec = &s->record;
  load_process(s, pid_tgid >> 32, false);
  begin_walk(s, scratch_key, pid_tgid >> 32, (__u32)pid_tgid, start);
  rec->kernel_depth = 0;
  rec->top_bcp_register = 0; /* the top frame is the native trace stub */
  w->pc = ctx->ip;
  w->sp = ctx->sp;
  w->fp = ctx->bp;
  note_continuation(s);  /* a traced call, an allocation or a lock wait of a virtual thread is its own */
  __u32 udepth = run_walk(s, &scratch_key);

  s->trace.duration_ns = duration;
  s->trace.hook_index = hook;
  s->trace.reserved = 0;
  s->trace.detail = detail;
  s->trace.address = address;
  read_thread_context(bpf_get_current_task_btf(), rec, udepth * 2);
  __u64 size = JFRBPF_TRACE_HEAD_SIZE + JFRBPF_SAMPLE_RECORD_SIZE(udepth, 0, rec->context_size);
  if (size > sizeof(s->trace) + sizeof(s->record)) size = sizeof(s->trace) + sizeof(s->record);
  if (bpf_ringbuf_output(&traces, &s->trace, size, ringbuf_wakeup_flags(&traces, w->seq)) != 0) {
    timer_count(JFRBPF_TIMER_TRACES_LOST_RINGBUF_FULL, 1);
  } else {
    timer_count(JFRBPF_TIMER_TRACES, 1);
  }
  w->busy = 0;
}

/* traced(hook index, entry time, duration, detail, address, session): the six integer argument registers.
 * Every recorder of a JVM has its uprobe on the stub; the attachment's cookie is the agent session of this
 * recorder, and a call made for another recorder's session is not ours. */
SEC("uprobe")
int on_method_traced(struct pt_regs* ctx) {
  if ((__u32)ctx->r9 != (__u32)bpf_get_attach_cookie(ctx)) return 0;
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tgid = pid_tgid >> 32;
  if (!bpf_map_lookup_elem(&hooked_processes, &tgid)) {
    __u8 one = 1;
    bpf_map_update_elem(&hooked_processes, &tgid, &one, BPF_ANY);
  }
  send_trace(ctx, (__u32)ctx->di, ctx->si, ctx->dx, ctx->cx, ctx->r8, pid_tgid);
  return 0;
}

#endif
