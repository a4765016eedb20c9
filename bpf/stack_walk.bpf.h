/* The user-stack walker every program of the sampler object uses (CPU samples, method traces, off-CPU
 * records): begin_walk, then the caller sets the starting registers, then run_walk, one bpf_loop over the
 * frames: native ones by the unwind tables (native_frames.bpf.h), Java ones by the JVM's layout
 * (hotspot_frames.bpf.h), each frame appended to the record in the walk's scratch. */
#ifndef JFRBPF_STACK_WALK_BPF_H
#define JFRBPF_STACK_WALK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "frozen_frames.bpf.h"
#include "hotspot_frames.bpf.h"
#include "native_frames.bpf.h"
#include "sampler_maps.bpf.h"
#include "walker_state.bpf.h"

/* Set by the loader before load: the deepest user stack a walk takes. */
const volatile __u32 user_stack_depth = JFRBPF_MAX_USER_FRAMES;

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

#define SYSCALL_INSTRUCTION 0x050f /* 0f 05, as a little-endian word */

static __always_inline long step_native(struct sampler_scratch* s) {
  struct walk* w = &s->walk;
  /* A return address points after the call: look up the call itself, which may end its function. So may a
   * syscall, which a thread in a system call is right after: where its pc has no row (the sigreturn
   * trampoline ends with its syscall), the syscall's holds. */
  __u64 lookup_pc = w->exact_pc ? w->pc : w->pc - 1;
  __u64 packed = cached_unwind_row(w, lookup_pc);
  const struct jfrbpf_unwind_row* row = (const struct jfrbpf_unwind_row*)&packed;
  __u16 code = 0;
  if (w->exact_pc && row->kind == JFRBPF_UNWIND_NONE &&
      bpf_probe_read_user(&code, sizeof(code), (const void*)(w->pc - 2)) == 0 && code == SYSCALL_INSTRUCTION) {
    packed = cached_unwind_row(w, w->pc - 1);
  }
  w->exact_pc = 0;
  if (row->kind != JFRBPF_UNWIND_NONE) {
    int applied = apply_unwind_row(s, row);
    if (applied <= 0) return applied < 0 ? 1 : 0;
  }
  if (unwind_by_frame_pointer(s)) return 0;
  if (w->has_jvm && !w->anchor_used) {
    __u64 java_thread = walk_java_thread(s);
    if (java_thread && jump_to_java_anchor(s, java_thread)) {
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
  if (chunk_done(w, w->pc, w->sp)) {
    int status = leave_chunk(w->scratch_key);
    if (status != 0) return walk_stop(w, status);
  }
  __u64 pc = w->pc;
  if (pc == 0) return walk_stop(w, JFRBPF_WALK_ROOT);
  if (in_return_barrier(s, pc) && enter_frozen_frames(w->scratch_key)) return 0;
  __u32 slot = record_frame(s, pc);
  if (w->has_jvm && pc >= s->jvm.interpreter_low && pc < s->jvm.interpreter_high) {
    bool interrupted = w->exact_pc;
    w->exact_pc = 0;
    if (w->chunk) return step_frozen_interpreted(w->scratch_key, slot);
    /* Only an interrupted frame can be caught before its entry has built it. */
    if (interrupted && unwind_unbuilt_interpreted(w->scratch_key)) return 0;
    return step_interpreted(s, slot, false);
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
      /* Also where a run reaches the return barrier (frozen_frames.bpf.h): its stub is in a BufferBlob,
       * whose frame size is 0. */
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
 * plain table row is cached. Anything else ends the loop call, to be walked by walk_frame: frozen frames too,
 * which keeps their checks out of the paths the verifier walks most. */
static __always_inline enum fast_frame walk_fast_frame(struct sampler_scratch* s, struct blob_cache* cache) {
  struct walk* w = &s->walk;
  __u64 pc = w->pc;
  if (pc == 0 || !walk_room(w) || w->chunk || in_return_barrier(s, pc)) return FAST_FRAME_NOT_FAST;
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
  long stopped = interpreted ? step_interpreted(s, slot, false)
                             : apply_unwind_row(s, (const struct jfrbpf_unwind_row*)&row) != 0;
  return stopped ? FAST_FRAME_STOPPED : FAST_FRAME_UNWOUND;
}

/* Each bpf_loop step costs a call, a return (which this kernel's SRSO mitigation, safe RET, makes dear) and
 * its set-up, so one step walks one frame of any kind and then up to FAST_FRAMES_PER_STEP fast frames or
 * compiled runs. The verifier walks every iteration of this loop, and every instruction it processes costs
 * start-up time. */
#define FAST_FRAMES_PER_STEP 8

/* One step of the walk in scratch `key`; nonzero to stop. A global function: the verifier checks it once,
 * while a bpf_loop callback is checked again until its states at the loop converge. */
__noinline int walk_frames(__u32 key) {
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

/* Returns 1 to stop the loop. `ctx` points at the key of the scratch the walk runs in. */
static long walk_step(__u32 index, void* ctx) {
  return walk_frames(*(__u32*)ctx) != 0;
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
  rec->current_thread_id = 0;
  rec->current_thread_object = 0;

  struct walk* w = &s->walk;
  w->tgid = tgid;
  w->scratch_key = key;
  w->depth = 0;
  w->max_depth = user_stack_depth;
  w->end = JFRBPF_WALK_ROOT;
  w->anchor_used = 0;
  w->frozen_walked = 0;
  w->chunk = 0;
  w->chunk_end = 0;
  w->exact_pc = 1;
  w->seq += 1;
  w->unwind_epoch = unwind_epoch;
  w->has_jvm = s->known.jvm;
  w->thread_register = 0;
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

#endif
