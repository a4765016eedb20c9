// SPDX-License-Identifier: GPL-2.0
/* CPU-time sampler. on_cpu_clock runs on every overflow of the clocks the loader attaches it to: by default
 * one PERF_COUNT_SW_TASK_CLOCK event per thread of each profiled process (counting that thread's CPU time
 * only), or, with --sampler cpu, one PERF_COUNT_SW_CPU_CLOCK event per online CPU, of whose overflows it
 * keeps those that interrupted a profiled process. It walks the user stack (native, interpreted, compiled
 * and stub frames) and the kernel stack, and sends each sample to userspace. Nothing is aggregated here: JFR
 * wants every sample with its own timestamp. Every way a sample can be lost has its own counter.
 * The object also holds the uprobes on a watched JVM's code heap frees (on_code_freed: the blob and code
 * bytes caches no longer hold), from method_timer.bpf.h, the method-trace uprobe, whose invocations'
 * stacks the same walker takes, and from off_cpu.bpf.h the scheduler hooks of --off-cpu. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "walker_state.bpf.h"
#include "hotspot_frames.bpf.h"
#include "native_frames.bpf.h"
#include "thread_cpu_time.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load (and sampling_period_ns, cpu_time_lead_ns: thread_cpu_time.bpf.h). */
const volatile __u32 user_stack_depth = JFRBPF_MAX_USER_FRAMES;
/* Time every target sample into sample_costs (one more clock read per sample): for benchmarks. */
const volatile bool measure_sample_cost = false;

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4096);
  __type(key, __u32); /* tgid */
  __type(value, struct jfrbpf_target);
} targets SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u32); /* tgid */
  __type(value, struct jfrbpf_hotspot);
} hotspot_jvms SEC(".maps");

/* Bumped by the loader after every change to the two maps above. */
__u64 process_epoch = 0;

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32); /* tid */
  __type(value, __u64); /* JavaThread* */
} java_threads SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 16 << 20); /* resized by the loader */
} samples SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32); /* tid */
  __type(value, struct jfrbpf_thread_loss);
} thread_losses SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, JFRBPF_COST_BUCKETS);
  __type(key, __u32);
  __type(value, __u64);
} sample_costs SEC(".maps");

static __always_inline void record_cost(__u64 entered_ns) {
  if (!measure_sample_cost) return;
  __u64 bucket = (bpf_ktime_get_ns() - entered_ns) / JFRBPF_COST_BUCKET_NS;
  __u32 key = bucket < JFRBPF_COST_BUCKETS ? bucket : JFRBPF_COST_BUCKETS - 1;
  __u64* value = bpf_map_lookup_elem(&sample_costs, &key);
  if (value) *value += 1;
}

/* The thread's loss ledger entry, made if need be; 0 when the map is full. */
static __always_inline struct jfrbpf_thread_loss* thread_loss(__u32 tgid, __u32 tid) {
  struct jfrbpf_thread_loss* loss = bpf_map_lookup_elem(&thread_losses, &tid);
  if (!loss) {
    struct jfrbpf_thread_loss fresh = {.tgid = tgid};
    bpf_map_update_elem(&thread_losses, &tid, &fresh, BPF_NOEXIST); /* fails when another CPU raced us in */
    loss = bpf_map_lookup_elem(&thread_losses, &tid);
  }
  return loss;
}

/* `periods` samples of the thread, standing for `cpu_time_ns`, are lost. */
static __always_inline void charge_loss(__u32 tgid, __u32 tid, __u64 periods, __u64 cpu_time_ns) {
  count_n(JFRBPF_COUNTER_SAMPLE_PERIODS, periods);
  struct jfrbpf_thread_loss* loss = thread_loss(tgid, tid);
  if (!loss) {
    count_n(JFRBPF_COUNTER_LOST_THREAD_MAP_FULL, periods);
    return;
  }
  __sync_fetch_and_add(&loss->lost_ringbuf_full, periods);
  __sync_fetch_and_add(&loss->lost_cpu_ns, cpu_time_ns);
}

/* Appends pc to the record's user frames; returns its slot. */
static __always_inline __u32 record_frame(struct sampler_scratch* s, __u64 pc) {
  struct walk* w = &s->walk;
  __u32 slot = (w->depth & (JFRBPF_MAX_USER_FRAMES - 1)) * 2;
  s->record.data[slot] = pc;
  s->record.data[slot + 1] = 0;
  w->depth += 1;
  return slot;
}

static __always_inline bool walk_room(const struct walk* w) {
  return w->depth < w->max_depth && w->depth < JFRBPF_MAX_USER_FRAMES;
}

static __always_inline long step_native(struct sampler_scratch* s) {
  struct walk* w = &s->walk;
  /* A return address points after the call: look up the call itself, which may end its function. */
  __u64 lookup_pc = w->exact_pc ? w->pc : w->pc - 1;
  w->exact_pc = 0;
  __u64 packed = cached_unwind_row(w, lookup_pc);
  const struct jfrbpf_unwind_row* row = (const struct jfrbpf_unwind_row*)&packed;
  if (row->kind != JFRBPF_UNWIND_NONE) {
    int applied = apply_unwind_row(s, row);
    if (applied <= 0) return applied < 0 ? 1 : 0;
  }
  if (unwind_by_frame_pointer(s)) return 0;
  if (w->has_jvm && !w->anchor_used) {
    __u32 tid = s->record.tid;
    __u64* java_thread = bpf_map_lookup_elem(&java_threads, &tid);
    if (java_thread && jump_to_java_anchor(s, *java_thread)) {
      count(JFRBPF_COUNTER_WALK_ANCHOR_USED);
      /* The native frames between here and the last Java frame are not in the stack: say so there. */
      if (walk_room(w)) record_frame(s, JFRBPF_FRAMES_SKIPPED_PC);
      return 0;
    }
  }
  return walk_stop(w, row->kind != JFRBPF_UNWIND_NONE ? JFRBPF_WALK_BAD_FRAME : JFRBPF_WALK_NO_UNWIND_INFO);
}

/* Records the frame at the walk's registers and finds its caller, whatever kind of code it runs. Returns
 * 1 when the walk stops. */
static __always_inline long walk_frame(struct sampler_scratch* s, struct blob_cache* cache) {
  struct walk* w = &s->walk;
  if (!walk_room(w)) return walk_stop(w, JFRBPF_WALK_DEPTH_LIMIT);
  __u64 pc = w->pc;
  if (pc == 0) return walk_stop(w, JFRBPF_WALK_ROOT);
  __u32 slot = record_frame(s, pc);
  if (w->has_jvm && pc >= s->jvm.interpreter_low && pc < s->jvm.interpreter_high) {
    w->exact_pc = 0;
    return step_interpreted(s, slot);
  }
  if (w->has_jvm && pc >= s->jvm.code_low && pc < s->jvm.code_high) {
    w->exact_pc = 0;
    return step_code_cache(s, cache);
  }
  return step_native(s);
}

/* Unwinds the run of compiled frames that starts at the walk's registers, as long as their blobs were checked
 * in this walk and their return addresses are in the stack window: the walk's hottest path (recursions, and
 * most of any Java stack), so it keeps its state in registers, and a frame in the same code granule as the
 * one before it (a recursion) needs no cache lookup. Returns how many frames it unwound. */
#define COMPILED_RUN_MAX 16

static __always_inline __u32 walk_compiled_run(struct sampler_scratch* s, struct blob_cache* cache) {
  struct walk* w = &s->walk;
  if (!w->has_jvm) return 0;
  __u64 pc = w->pc, sp = w->sp, fp = w->fp;
  __u32 depth = w->depth;
  __u32 max_depth = w->max_depth < JFRBPF_MAX_USER_FRAMES ? w->max_depth : JFRBPF_MAX_USER_FRAMES;
  const __u64 code_low = s->jvm.code_low, code_high = s->jvm.code_high;
  const __u64 window_low = s->window.low, window_high = s->window.high;
  __u64 granule_mask = ~0ull << (s->jvm.code_granule_shift & 63);
  __u64 last_granule = 0;
  __u64 frame_bytes = 0;
  __u32 frames = 0;
#pragma clang loop unroll(disable)
  for (int i = 0; i < COMPILED_RUN_MAX; i++) {
    if (depth >= max_depth || pc < code_low || pc >= code_high) break;
    if (depth == 0) break; /* the top frame may be caught in its prologue or epilogue */
    __u64 granule = pc & granule_mask;
    if (granule != last_granule) {
      const struct blob_cache_entry* entry = checked_blob(s, cache, pc);
      if (!entry || !plain_frame_size(entry->frame_size)) break;
      last_granule = granule;
      frame_bytes = (__u64)entry->frame_size * 8;
    }
    __u64 sender_sp = sp + frame_bytes;
    __u64 at = sender_sp - 16; /* saved rbp, return address: the two words below the sender's sp */
    if ((at & 7) != 0 || at < window_low || sender_sp > window_high) break; /* the general path refills */
    __u64 index = (at - window_low) / 8;
    if (index > STACK_WINDOW_BYTES / 8) break; /* cannot happen: tells the verifier */
    __u64 caller_pc = s->window.words[index + 1];
    /* A caller outside the code cache is native code, or a sign the frame was displaced (unwind_sized_frame
     * tells which): the general path unwinds this frame. */
    if (caller_pc < code_low || caller_pc >= code_high) break;
    __u32 slot = (depth & (JFRBPF_MAX_USER_FRAMES - 1)) * 2;
    s->record.data[slot] = pc;
    s->record.data[slot + 1] = 0;
    depth += 1;
    frames += 1;
    fp = s->window.words[index];
    pc = caller_pc;
    sp = sender_sp;
  }
  if (frames) {
    w->pc = pc;
    w->sp = sp;
    w->fp = fp;
    w->depth = depth;
    w->exact_pc = 0;
  }
  return frames;
}

enum fast_frame { FAST_FRAME_UNWOUND, FAST_FRAME_STOPPED, FAST_FRAME_NOT_FAST };

/* The frames a loop call goes on with: interpreted frames; below the top, compiled and stub frames (runs of
 * blobs this walk checked already, as a whole, and any other with its one header read); native frames whose
 * plain table row is cached. Anything else ends the loop call, to be walked by walk_frame. */
static __always_inline enum fast_frame walk_fast_frame(struct sampler_scratch* s, struct blob_cache* cache) {
  struct walk* w = &s->walk;
  __u64 pc = w->pc;
  if (pc == 0 || !walk_room(w)) return FAST_FRAME_NOT_FAST;
  bool interpreted = w->has_jvm && pc >= s->jvm.interpreter_low && pc < s->jvm.interpreter_high;
  bool compiled = !interpreted && w->has_jvm && pc >= s->jvm.code_low && pc < s->jvm.code_high;
  if (compiled) {
    if (walk_compiled_run(s, cache)) return FAST_FRAME_UNWOUND;
    /* A blob not yet checked in this walk costs a read here as anywhere: no need to end the loop call. */
    record_frame(s, pc);
    w->exact_pc = 0;
    return step_code_below_top(s, cache) ? FAST_FRAME_STOPPED : FAST_FRAME_UNWOUND;
  }
  __u64 row = 0;
  if (!interpreted) {
    /* A return address points after the call: its row is the call's, at pc - 1 (see step_native). */
    if (w->exact_pc || !cached_plain_row(w, pc - 1, &row)) return FAST_FRAME_NOT_FAST;
  }
  __u32 slot = record_frame(s, pc);
  w->exact_pc = 0;
  long stopped = interpreted ? step_interpreted(s, slot)
                             : apply_unwind_row(s, (const struct jfrbpf_unwind_row*)&row) != 0;
  return stopped ? FAST_FRAME_STOPPED : FAST_FRAME_UNWOUND;
}

/* Each bpf_loop step costs a call, a return (which this kernel's SRSO mitigation, safe RET, makes dear) and
 * its set-up, so one step walks one frame of any kind and then up to FAST_FRAMES_PER_STEP fast frames or
 * compiled runs. The verifier walks every iteration of these loops: 8, with runs of 16, cost it 442k
 * instructions of its 1M limit on 6.18, and every instruction of it costs start-up time. */
#define FAST_FRAMES_PER_STEP 8

/* Returns 1 to stop the loop. `ctx` points at the key of the scratch the walk runs in. */
static long walk_step(__u32 index, void* ctx) {
  __u32 key = *(__u32*)ctx;
  struct sampler_scratch* s = get_scratch(key);
  struct blob_cache* cache = bpf_map_lookup_elem(&blob_caches, &key);
  if (!s || !cache) return 1;
  if (walk_frame(s, cache)) return 1;
  for (int i = 0; i < FAST_FRAMES_PER_STEP; i++) {
    enum fast_frame result = walk_fast_frame(s, cache);
    if (result != FAST_FRAME_UNWOUND) return result == FAST_FRAME_STOPPED;
  }
  return 0;
}

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
    return false;
  }
  struct pt_regs* user = (struct pt_regs*)bpf_task_pt_regs(bpf_get_current_task_btf());
  w->pc = BPF_CORE_READ(user, ip);
  w->sp = BPF_CORE_READ(user, sp);
  w->fp = BPF_CORE_READ(user, bp);
  s->record.top_bcp_register = BPF_CORE_READ(user, r13);
  return true;
}

static __always_inline void end_count(enum jfrbpf_walk_end end) {
  switch (end) {
    case JFRBPF_WALK_ROOT: count(JFRBPF_COUNTER_WALK_ROOT); break;
    case JFRBPF_WALK_DEPTH_LIMIT: count(JFRBPF_COUNTER_USER_STACK_TRUNCATED); break;
    case JFRBPF_WALK_READ_FAULT: count(JFRBPF_COUNTER_WALK_READ_FAULT); break;
    case JFRBPF_WALK_UNKNOWN_CODE: count(JFRBPF_COUNTER_WALK_UNKNOWN_CODE); break;
    case JFRBPF_WALK_NO_UNWIND_INFO: count(JFRBPF_COUNTER_WALK_NO_UNWIND_INFO); break;
    case JFRBPF_WALK_BAD_FRAME: count(JFRBPF_COUNTER_WALK_BAD_FRAME); break;
    case JFRBPF_WALK_NOT_TAKEN: break; /* no walk: counted as JFRBPF_COUNTER_OFF_CPU_NO_USER_STACK */
  }
}

/* Whether `tgid` is a target, with its JVM layout in the scratch if it has one. Unless `need_target` is
 * false, a process that is not a target is not looked up further and leaves what the scratch knows alone:
 * with per-CPU clocks, other processes' samples come between a target's. */
static __always_inline bool load_process(struct sampler_scratch* s, __u32 tgid, bool need_target) {
  struct known_process* known = &s->known;
  __u64 epoch = process_epoch; /* before the lookups: a change during them bumps it again */
  if (known->tgid == tgid && known->epoch == epoch) return known->target;
  const struct jfrbpf_target* entry = bpf_map_lookup_elem(&targets, &tgid);
  bool target = entry != 0;
  if (!target && need_target) return false;
  known->added_ns = entry ? entry->added_ns : 0;
  const struct jfrbpf_hotspot* jvm = bpf_map_lookup_elem(&hotspot_jvms, &tgid);
  if (jvm) s->jvm = *jvm;
  known->epoch = epoch;
  known->tgid = tgid;
  known->target = target;
  known->jvm = jvm != 0;
  return target;
}

/* Prepares scratch `key` for a walk of the current thread's user stack (the sampler's and the trace
 * probe's alike), after load_process: the record's header and the walk's state. The caller then sets the
 * starting registers and calls run_walk. */
static __always_inline void begin_walk(struct sampler_scratch* s, __u32 key, __u32 tgid, __u32 tid, __u64 time_ns) {
  struct jfrbpf_sample_record* rec = &s->record;
  rec->time_ns = time_ns;
  rec->tgid = tgid;
  rec->tid = tid;
  rec->cpu = bpf_get_smp_processor_id();
  rec->flags = s->known.jvm ? JFRBPF_SAMPLE_JVM : 0;
  rec->off_cpu_state = 0;
  rec->cpu_time_ns = 0;
  rec->off_cpu_ns = 0;
  rec->run_delay_ns = 0;

  struct walk* w = &s->walk;
  w->tgid = tgid;
  w->scratch_key = key;
  w->depth = 0;
  w->max_depth = user_stack_depth;
  w->end = JFRBPF_WALK_ROOT;
  w->anchor_used = 0;
  w->exact_pc = 1;
  w->seq += 1;
  w->unwind_epoch = unwind_epoch;
  w->has_jvm = s->known.jvm;
  /* Read before this walk reads any code cache memory (see the blob cache): an even stamp for the code
   * epoch, an odd one for this walk alone. */
  w->blob_stamp = w->has_jvm && s->jvm.code_frees_watched ? *(volatile __u64*)&code_epoch << 1 : w->seq << 1 | 1;
  s->window.low = s->window.high = 0;
}

/* Walks the user stack begun by begin_walk into the record; returns its depth. */
static __always_inline __u32 run_walk(struct sampler_scratch* s, __u32* key) {
  struct walk* w = &s->walk;
  struct jfrbpf_sample_record* rec = &s->record;
  bpf_loop(JFRBPF_MAX_USER_FRAMES, walk_step, key, 0);
  __u32 udepth = w->depth;
  if (udepth > JFRBPF_MAX_USER_FRAMES) udepth = JFRBPF_MAX_USER_FRAMES;
  rec->user_depth = udepth;
  rec->walk_end = w->end;
  if (w->end == JFRBPF_WALK_DEPTH_LIMIT) rec->flags |= JFRBPF_SAMPLE_USER_STACK_TRUNCATED;
  if (udepth == 0) rec->flags |= JFRBPF_SAMPLE_USER_STACK_FAILED;
  return udepth;
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

  __u64 size = JFRBPF_SAMPLE_HEADER_SIZE + ((__u64)udepth * 2 + kdepth) * sizeof(__u64);
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
#include "method_timer.bpf.h"
#include "off_cpu.bpf.h"
