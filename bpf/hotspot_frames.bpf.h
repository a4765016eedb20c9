/* Unwinding HotSpot frames without frame pointers: interpreted frames by their fixed rbp-based layout
 * (recording Method* and bcp), compiled frames and stubs by their CodeBlob's frame size, found through the
 * code heap's segment map. Layouts: ../shared/reference/hotspot-frames.md, sections 2, 3 and 5. */
#ifndef JFRBPF_HOTSPOT_FRAMES_BPF_H
#define JFRBPF_HOTSPOT_FRAMES_BPF_H

#include "walker_state.bpf.h"

#define INTERPRETER_MAX_FRAME_BYTES (1u << 20)
#define STUB_MAX_FRAME_BYTES (1u << 16)
#define MAX_FRAME_SIZE_WORDS (1 << 16)

/* The CodeBlob containing pc, or 0 if pc is in free or unknown code cache memory; the JVM layout is the one
 * copied into the scratch `scratch_key`. A global function, verified once (see find_unwind_row). */
__noinline __u64 find_code_blob(__u32 scratch_key, __u64 pc) {
  const struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s) return 0;
  const struct jfrbpf_hotspot* jvm = &s->jvm;
  const struct jfrbpf_code_heap* heap = 0;
  for (int i = 0; i < JFRBPF_MAX_CODE_HEAPS; i++) {
    if (i < jvm->heap_count && pc >= jvm->heaps[i].low && pc < jvm->heaps[i].high) {
      heap = &jvm->heaps[i];
      break;
    }
  }
  if (!heap) return 0;
  __u32 shift = heap->log2_segment_size & 63;
  __u64 segment = (pc - heap->low) >> shift;
  for (int hop = 0; hop < JFRBPF_SEGMAP_MAX_HOPS; hop++) {
    __u8 tag = 0;
    if (bpf_probe_read_user(&tag, 1, (const void*)(heap->segmap + segment)) != 0) return 0;
    if (tag == 0xff) return 0; /* free segment */
    if (tag == 0) return heap->low + (segment << shift) + jvm->heap_block_header_size;
    if (tag > segment) return 0;
    segment -= tag;
  }
  return 0;
}

static __always_inline long step_interpreted(struct sampler_scratch* s, __u32 slot) {
  struct walk* w = &s->walk;
  const struct jfrbpf_hotspot* jvm = &s->jvm;
  __u64 fp = w->fp;
  if ((fp & 7) != 0 || fp < w->sp || fp - w->sp > INTERPRETER_MAX_FRAME_BYTES) {
    return walk_stop(w, JFRBPF_WALK_BAD_FRAME);
  }
  /* One read: the eight words below rbp (Method*, bcp, sender sp: slots -1..-8 on every JDK since 8), then
   * the saved rbp and the return address at rbp. */
  __u64 words[10];
  if (bpf_probe_read_user(words, sizeof(words), (const void*)(fp - 8 * sizeof(__u64))) != 0) {
    return walk_stop(w, JFRBPF_WALK_READ_FAULT);
  }
  __u64 method = words[(8 + jvm->interp_method_slot) & 7];
  __u64 bcp = words[(8 + jvm->interp_bcp_slot) & 7];
  __u64 sender_sp = words[(8 + jvm->interp_sender_sp_slot) & 7];
  __u64 caller_fp = words[8];
  __u64 caller_pc = words[9];
  s->record.data[slot] = bcp;
  s->record.data[slot + 1] = method;
  if (sender_sp <= fp) return walk_stop(w, JFRBPF_WALK_BAD_FRAME);
  w->pc = caller_pc;
  w->sp = sender_sp;
  w->fp = caller_fp;
  return 0;
}

/* The top frame of a sample may be caught while its frame is being built or torn down; only then is the
 * frame size not yet (or no longer) the distance to the return address. Returns true when it handled the
 * frame, by decoding the instruction at pc. */
static __always_inline bool unwind_compiled_edge(struct walk* w, __u64 blob, const struct jfrbpf_hotspot* jvm) {
  __u8 code[3] = {};
  if (bpf_probe_read_user(code, sizeof(code), (const void*)w->pc) != 0) return false;
  __u64 code_begin = 0;
  if (jvm->blob_code_begin_is_offset) {
    __s32 offset = 0;
    if (!read_user_s32(blob + jvm->blob_code_begin, &offset)) return false;
    code_begin = blob + offset;
  } else if (!read_user_u64(blob + jvm->blob_code_begin, &code_begin)) {
    return false;
  }
  __s32 frame_complete = 0;
  if (jvm->blob_frame_complete_size == 2) {
    __s16 narrow = 0;
    if (bpf_probe_read_user(&narrow, sizeof(narrow), (const void*)(blob + jvm->blob_frame_complete)) != 0) return false;
    frame_complete = narrow;
  } else if (!read_user_s32(blob + jvm->blob_frame_complete, &frame_complete)) {
    return false;
  }
  __u64 ra_at = 0, fp_at = 0;
  bool in_prologue = frame_complete > 0 && w->pc < code_begin + frame_complete;
  if (in_prologue) {
    /* Before `push rbp` (the stack bang `mov %eax,-N(%rsp)` comes first): only the return address. */
    if (code[0] == 0x55 || code[0] == 0x89) {
      ra_at = w->sp;
    } else {
      fp_at = w->sp;
      ra_at = w->sp + 8;
    }
  } else if (code[0] == 0xc3) { /* ret */
    ra_at = w->sp;
  } else if (code[0] == 0x5d) { /* pop rbp */
    fp_at = w->sp;
    ra_at = w->sp + 8;
  } else if ((code[0] == 0x49 || code[0] == 0x4c) && code[1] == 0x3b && code[2] == 0xa7) {
    ra_at = w->sp; /* safepoint poll on return (cmp rsp, [r15+poll]) after pop rbp */
  } else if (code[0] == 0x0f && code[1] == 0x87) {
    ra_at = w->sp; /* its conditional jump to the poll stub */
  } else {
    return false;
  }
  __u64 caller_pc = 0, caller_fp = w->fp;
  if (!read_user_u64(ra_at, &caller_pc) || (fp_at && !read_user_u64(fp_at, &caller_fp))) return false;
  w->pc = caller_pc;
  w->fp = caller_fp;
  w->sp = ra_at + 8;
  return true;
}

static __always_inline long step_code_cache(struct sampler_scratch* s) {
  struct walk* w = &s->walk;
  const struct jfrbpf_hotspot* jvm = &s->jvm;
  __u64 blob = find_code_blob(w->scratch_key, w->pc);
  if (!blob) return walk_stop(w, JFRBPF_WALK_UNKNOWN_CODE);
  __s32 frame_size = 0;
  if (!read_user_s32(blob + jvm->blob_frame_size, &frame_size)) return walk_stop(w, JFRBPF_WALK_READ_FAULT);
  bool top = w->depth == 1;
  if (frame_size <= 0 || frame_size > MAX_FRAME_SIZE_WORDS) {
    /* Stubs without a recorded size keep an rbp frame, except frameless ones caught at the top. */
    __u64 fp = w->fp;
    if ((fp & 7) == 0 && fp >= w->sp && fp - w->sp < STUB_MAX_FRAME_BYTES) {
      __u64 frame[2]; /* saved rbp, return address */
      if (!read_user_pair(fp, frame)) return walk_stop(w, JFRBPF_WALK_READ_FAULT);
      w->pc = frame[1];
      w->sp = fp + 16;
      w->fp = frame[0];
      return 0;
    }
    if (!top) return walk_stop(w, JFRBPF_WALK_BAD_FRAME);
    __u64 caller_pc = 0;
    if (!read_user_u64(w->sp, &caller_pc)) return walk_stop(w, JFRBPF_WALK_READ_FAULT);
    w->pc = caller_pc;
    w->sp += 8;
    return 0;
  }
  if (top && unwind_compiled_edge(w, blob, jvm)) return 0;
  __u64 sender_sp = w->sp + (__u64)frame_size * 8;
  __u64 frame[2]; /* saved rbp, return address: the two words below the sender's sp */
  if (!read_user_pair(sender_sp - 16, frame)) return walk_stop(w, JFRBPF_WALK_READ_FAULT);
  w->pc = frame[1];
  w->sp = sender_sp;
  w->fp = frame[0];
  return 0;
}

/* A Java thread in native or VM code whose native frames could not be unwound continues at its last Java
 * frame, which HotSpot publishes in the thread's JavaFrameAnchor. Returns true if the walk can go on. */
static __always_inline bool jump_to_java_anchor(struct walk* w, const struct jfrbpf_hotspot* jvm) {
  if (!w->java_thread || w->anchor_used) return false;
  __u64 sp = 0, fp = 0, pc = 0;
  if (!read_user_u64(w->java_thread + jvm->anchor_sp, &sp) || sp == 0 || sp <= w->sp) return false;
  if (!read_user_u64(w->java_thread + jvm->anchor_fp, &fp) || !read_user_u64(w->java_thread + jvm->anchor_pc, &pc)) {
    return false;
  }
  if (pc == 0 && !read_user_u64(sp - 8, &pc)) return false;
  w->anchor_used = 1;
  w->pc = pc;
  w->sp = sp;
  w->fp = fp;
  return true;
}

#endif
