/* A mounted virtual thread's frames below the few the JVM thawed onto its carrier's stack: when a virtual
 * thread remounts, HotSpot copies back only its top frames and points the bottom one's return address at
 * the return barrier stub, which thaws more when it is reached. The rest stay frozen in the continuation's
 * stack chunks, StackChunk objects on the Java heap: the youngest is Continuation.tail, older ones follow
 * StackChunk.parent. A chunk's stack is a copy of those frames at its sp, laid out as on a thread's stack
 * (each frame's return address in the word below its sp), except that interpreted frames keep their frame
 * pointer and sender sp relative to where they are stored (see step_interpreted). The walker goes from the
 * return barrier through the chunks to the continuation's entry frame (enterSpecial) on the carrier's stack,
 * as JDK 25's own sampler does (StackChunkFrameStream). The thread is stopped while its sample is taken, so
 * its chunks do not change; every value read is checked before it is used, since a collector may move them
 * while the thread is off CPU. */
#ifndef JFRBPF_FROZEN_FRAMES_BPF_H
#define JFRBPF_FROZEN_FRAMES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "sampler_maps.bpf.h"
#include "walker_state.bpf.h"

#define CHUNK_MAX_WORDS (1u << 24) /* 128 MiB: a thread's stack is far smaller */
#define CHUNKS_MAX 8               /* chunks a walk follows; a virtual thread rarely has more than two */

static __always_inline bool in_return_barrier(const struct sampler_scratch* s, __u64 pc) {
  return s->walk.has_jvm && pc - s->jvm.return_barrier < s->jvm.return_barrier_size;
}

/* The frame that ends the chunk's frames: its bottom, or a null return address (the oldest frame frozen
 * into an empty chunk). */
static __always_inline bool chunk_done(const struct walk* w, __u64 pc, __u64 sp) {
  return w->chunk != 0 && (pc == 0 || sp >= w->chunk_end);
}

static __always_inline bool read_reference(const struct jfrbpf_hotspot* jvm, __u64 object, __u32 offset, __u64* out) {
  if (object == 0 || (object & 7) != 0 || offset == 0) return false;
  if (!jvm->narrow_oops) return read_user_u64(object + offset, out);
  __u32 narrow = 0;
  if (bpf_probe_read_user(&narrow, sizeof(narrow), (const void*)(object + offset)) != 0) return false;
  *out = narrow == 0 ? 0 : jvm->narrow_oop_base + ((__u64)narrow << (jvm->narrow_oop_shift & 7));
  return true;
}

/* Starts the walk at the youngest frame of `chunk`: 1 if it did, 0 if the chunk holds no frames, -1 if its
 * fields are not those of a chunk; the walk stays as it was unless 1. A global function: verified once, not
 * at each chunk the callers' loops may reach. */
__noinline int enter_chunk(__u32 scratch_key, __u64 chunk) {
  struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s) return -1;
  const struct jfrbpf_hotspot* jvm = &s->jvm;
  struct walk* w = &s->walk;
  __s32 size = 0, sp = 0, bottom = 0;
  if (chunk == 0 || (chunk & 7) != 0) return -1;
  if (bpf_probe_read_user(&size, sizeof(size), (const void*)(chunk + jvm->chunk_size)) != 0 ||
      bpf_probe_read_user(&sp, sizeof(sp), (const void*)(chunk + jvm->chunk_sp)) != 0 ||
      bpf_probe_read_user(&bottom, sizeof(bottom), (const void*)(chunk + jvm->chunk_bottom)) != 0) {
    return -1;
  }
  if (sp < 2 || sp > bottom || bottom > size || (__u32)size > CHUNK_MAX_WORDS) return -1;
  if (sp == bottom) return 0;
  __u64 stack = chunk + jvm->chunk_stack;
  __u64 top = stack + (__u64)sp * 8;
  __u64 frame[2]; /* the slot of the youngest frame's fp, relative if it is interpreted; its pc */
  if (!read_stack_pair(&s->window, top - 16, frame) || frame[1] == 0) return -1;
  w->chunk = chunk;
  w->chunk_end = stack + (__u64)bottom * 8;
  w->pc = frame[1];
  w->sp = top;
  w->fp = frame[0];
  w->fp_absolute_sp = 0;
  return 1;
}

/* At the return barrier: goes on at the youngest frozen frame of the virtual thread mounted on this thread.
 * Returns 1 if the walk goes on there, 0 if it cannot (the barrier is then walked as before: a stub that
 * ends the virtual thread's frames). A global function: verified once. */
__noinline int enter_frozen_frames(__u32 scratch_key) {
  struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s) return 0;
  struct walk* w = &s->walk;
  const struct jfrbpf_hotspot* jvm = &s->jvm;
  if (w->frozen_walked || jvm->chunk_stack == 0 || jvm->vthread == 0) return 0;
  w->frozen_walked = 1;
  __u64 java_thread = walk_java_thread(s);
  __u64 handle = 0, thread = 0, continuation = 0, chunk = 0;
  if (java_thread == 0 || !read_user_u64(java_thread + jvm->vthread, &handle) || handle == 0 ||
      !read_user_u64(handle, &thread) || !read_reference(jvm, thread, jvm->vthread_cont, &continuation) ||
      !read_reference(jvm, continuation, jvm->cont_tail, &chunk)) {
    return 0;
  }
  __u64 barrier_sp = w->sp, barrier_fp = w->fp;
  for (int i = 0; i < CHUNKS_MAX && chunk != 0; i++) {
    int entered = enter_chunk(scratch_key, chunk);
    if (entered < 0) return 0;
    if (entered > 0) {
      w->barrier_sp = barrier_sp;
      w->barrier_fp = barrier_fp;
      w->anchor_used = 1; /* the thread's anchor is not these frames' */
      count(JFRBPF_COUNTER_WALK_FROZEN_FRAMES);
      return 1;
    }
    if (!read_reference(jvm, chunk, jvm->chunk_parent, &chunk)) return 0;
  }
  return 0;
}

/* Past the oldest frame of the walk's chunk: on at an older chunk, or else at the continuation's entry frame
 * on the thread's stack, which the bottom frame returns to. Returns 0 to go on, or why the walk stops. A
 * global function: verified once. */
__noinline int leave_chunk(__u32 scratch_key) {
  struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s) return JFRBPF_WALK_BAD_FRAME;
  struct walk* w = &s->walk;
  const struct jfrbpf_hotspot* jvm = &s->jvm;
  __u64 chunk = w->chunk;
  for (int i = 0; i < CHUNKS_MAX; i++) {
    if (!read_reference(jvm, chunk, jvm->chunk_parent, &chunk)) return JFRBPF_WALK_READ_FAULT;
    if (chunk == 0) break;
    int entered = enter_chunk(scratch_key, chunk);
    if (entered < 0) return JFRBPF_WALK_BAD_FRAME;
    if (entered > 0) return 0;
  }
  w->chunk = 0;
  w->chunk_end = 0;
  if (jvm->continuation_return == 0) return JFRBPF_WALK_ROOT;
  w->pc = jvm->continuation_return;
  w->sp = w->barrier_sp;
  w->fp = w->barrier_fp;
  return 0;
}

#endif
