/* Unwinding HotSpot frames without frame pointers: interpreted frames by their fixed rbp-based layout
 * (recording Method* and bcp), compiled frames and stubs by their CodeBlob's frame size, found through the
 * code heap's segment map. Layouts: ../shared/reference/hotspot-frames.md, sections 2, 3 and 5. */
#ifndef JFRBPF_HOTSPOT_FRAMES_BPF_H
#define JFRBPF_HOTSPOT_FRAMES_BPF_H

#include "native_frames.bpf.h"
#include "walker_state.bpf.h"

#define INTERPRETER_MAX_FRAME_BYTES (1u << 20)
#define STUB_MAX_FRAME_BYTES (1u << 16)
#define MAX_FRAME_SIZE_WORDS (1 << 16)

/* A direct-mapped cache, per CPU and scratch, of the CodeBlob each code granule (the smallest segment of the
 * code heaps, which never holds two blobs) was found in, with what the walker uses of its header: it saves
 * the walk the segment map (one read per hop) and the header read (a bpf_probe_read_user into the code cache
 * costs 0.1-0.3 us on this project's VM, the first of a sample the most). The JVM frees and reuses code cache
 * memory, so an entry is trusted only while its stamp holds (blocks never overlap, so a used block that spans
 * the pc is the pc's blob):
 * - where jfrbpf watches the JVM's code frees (a uprobe on the code heap's two deallocation functions bumps
 *   code_epoch before any block is freed), the stamp is the code epoch when the header was read: the entry
 *   holds until the next free. A thread's frames are in blobs the JVM has not freed, so a walk that read the
 *   epoch after the thread stopped sees every free that could have changed a blob it meets;
 * - elsewhere it is the walk's number: the blob is read again and checked once per walk. */
#define BLOB_CACHE_INDEX_BITS 9
#define BLOB_CACHE_ENTRIES (1u << BLOB_CACHE_INDEX_BITS) /* 24 KiB: a per-CPU map value holds at most 32 */

/* Bumped before the code heap of a JVM whose frees are watched frees a block, and by the loader whenever a
 * JVM layout comes or goes (a process id can come back as another JVM). */
__u64 code_epoch = 0;

struct blob_cache_entry {
  __u64 granule; /* its address */
  __u64 blob;
  __u64 code_begin;
  __u64 stamp; /* walk.blob_stamp of the walk that last read and checked the blob's header */
  __s32 frame_size;
  __s32 frame_complete;
  __u32 tgid;
  __u32 top; /* as blob_header's */
};

/* A per-CPU array of one cache per scratch: SCRATCH_SAMPLER and SCRATCH_TRACE. */
#define PER_SCRATCH_CACHE_MAP(name, cache_type)  \
  struct {                                       \
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);     \
    __uint(max_entries, SCRATCHES);              \
    __type(key, __u32);                          \
    __type(value, cache_type);                   \
  } name SEC(".maps")

struct blob_cache {
  struct blob_cache_entry entries[BLOB_CACHE_ENTRIES];
};

PER_SCRATCH_CACHE_MAP(blob_caches, struct blob_cache);

/* The code bytes at the top pcs of samples, per CPU and scratch, kept under the blob cache's stamps: a walk
 * that finds its top pc here reads no code cache memory at all. HotSpot patches live code only in ways that
 * leave what the prologue and epilogue decoding concludes unchanged: operands, not opcodes (call targets,
 * inline cache and oop immediates, the entry barrier's guard value); C1's patch sites in a method's body,
 * where neither the jump nor the instruction it becomes is one the decoding knows; and a not-entrant
 * method's verified entry, where nothing is pushed yet whatever instruction is there. */
#define CODE_BYTES_CACHE_INDEX_BITS 10
#define CODE_BYTES_CACHE_ENTRIES (1u << CODE_BYTES_CACHE_INDEX_BITS) /* 32 KiB */

struct code_bytes_entry {
  __u64 pc;
  __u64 stamp; /* as a blob cache entry's */
  __u8 bytes[8];
  __u32 tgid;
  __u32 reserved;
};

struct code_bytes_cache {
  struct code_bytes_entry entries[CODE_BYTES_CACHE_ENTRIES];
};

PER_SCRATCH_CACHE_MAP(code_bytes_caches, struct code_bytes_cache);

static __always_inline const struct jfrbpf_code_heap* code_heap_of(const struct jfrbpf_hotspot* jvm, __u64 pc) {
  for (int i = 0; i < JFRBPF_MAX_CODE_HEAPS; i++) {
    if (i < jvm->heap_count && pc >= jvm->heaps[i].low && pc < jvm->heaps[i].high) return &jvm->heaps[i];
  }
  return 0;
}

/* The CodeBlob whose segments hold pc according to the heap's segment map, or 0 if they are free. */
static __always_inline __u64 segmap_blob(const struct jfrbpf_hotspot* jvm, const struct jfrbpf_code_heap* heap,
                                         __u64 pc) {
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

/* The field `offset` bytes from the copy's start, in the low bits: a field never spans two words. */
static __always_inline __u64 header_field(const struct blob_header* h, __u32 offset) {
  return h->words[(offset / 8) & (JFRBPF_BLOB_HEADER_MAX / 8 - 1)] >> ((offset & 7) * 8);
}

/* Copies the header of the CodeBlob at `blob` into the scratch and takes what the walker uses from it; true
 * if it is a used block that spans pc. */
static __always_inline bool read_blob_header(struct sampler_scratch* s, const struct jfrbpf_code_heap* heap,
                                             __u64 blob, __u64 pc) {
  const struct jfrbpf_hotspot* jvm = &s->jvm;
  struct blob_header* h = &s->blob;
  __u32 bytes = jvm->blob_header_bytes;
  if (bytes == 0 || bytes > JFRBPF_BLOB_HEADER_MAX) return false;
  __u64 block = blob - jvm->heap_block_header_size;
  if (block < heap->low || pc < blob) return false;
  if (bpf_probe_read_user(h->words, bytes, (const void*)block) != 0) return false;
  if ((__u8)header_field(h, jvm->heap_block_used) == 0) return false;
  __u64 segments = header_field(h, jvm->heap_block_length);
  if (jvm->heap_block_length_size == 4) segments = (__u32)segments;
  if (segments == 0 || segments > (heap->high - heap->low) >> (heap->log2_segment_size & 63)) return false;
  if (pc - block >= segments << (heap->log2_segment_size & 63)) return false;
  __u32 fields = jvm->heap_block_header_size;
  __u64 code_begin = header_field(h, fields + jvm->blob_code_begin);
  __u64 frame_complete = header_field(h, fields + jvm->blob_frame_complete);
  h->blob = blob;
  h->code_begin = jvm->blob_code_begin_is_offset ? blob + (__s32)code_begin : code_begin;
  h->frame_size = (__s32)header_field(h, fields + jvm->blob_frame_size);
  h->frame_complete = jvm->blob_frame_complete_size == 2 ? (__s16)frame_complete : (__s32)frame_complete;
  return true;
}

static __always_inline __u64 code_granule(const struct jfrbpf_hotspot* jvm, __u64 pc) {
  __u32 shift = jvm->code_granule_shift & 63;
  return pc >> shift << shift;
}

static __always_inline struct blob_cache_entry* blob_cache_entry(struct blob_cache* cache, __u64 granule) {
  return &cache->entries[(granule * 0x9e3779b97f4a7c15ull) >> (64 - BLOB_CACHE_INDEX_BITS)];
}

static __always_inline bool blob_cache_hit(const struct blob_cache_entry* entry, __u64 granule, const struct walk* w) {
  return entry->granule == granule && entry->tgid == w->tgid && entry->stamp == w->blob_stamp;
}

static __always_inline bool plain_frame_size(__s32 frame_size) {
  return frame_size > 0 && frame_size <= MAX_FRAME_SIZE_WORDS;
}

/* How the frame of a blob unwinds at the top of a stack, where the blob's code may not have built it yet:
 * - BLOB_TOP_SIZED: by its size, where the prologue offset and the code at pc tell it is built (nmethods,
 *   and stubs of unknown shape);
 * - BLOB_TOP_RBP: a stub with a size but no prologue offset whose code begins with push rbp; mov rbp,rsp (C1's
 *   runtime stubs): by rbp, since the registers it saves next are in its size;
 * - BLOB_TOP_STUB: a buffer of StubRoutines, without a size: some keep an rbp frame, some none;
 * - BLOB_TOP_FRAMELESS: any other blob without a size (vtable and itable stubs, method handle adapters, C1's
 *   slow_subtype_check) keeps none: rbp is whatever the caller left there, often an older interpreter frame's,
 *   which an rbp unwind would take for the stub's;
 * - BLOB_TOP_ADAPTER: an I2C/C2I adapter, frameless too. */
enum blob_top { BLOB_TOP_SIZED, BLOB_TOP_RBP, BLOB_TOP_STUB, BLOB_TOP_FRAMELESS, BLOB_TOP_ADAPTER };

#define RBP_FRAME_CODE_1 0xe5894855u /* push %rbp; mov %rsp,%rbp */
#define RBP_FRAME_CODE_2 0xec8b4855u /* push %rbp; mov %rsp,%rbp, the other encoding */
#define STUB_ROUTINES_NAME 0x74756f5262757453ull /* "StubRout": "StubRoutines (1)", "StubRoutines (final stubs)" */
#define ADAPTERS_NAME 0x204932432f433249ull      /* "I2C/C2I ": "I2C/C2I adapters" */

/* Whether the blob's code begins by building an rbp frame (a read of its first bytes). */
static __always_inline bool begins_with_rbp_frame(const struct blob_header* h) {
  __u32 code = 0;
  return bpf_probe_read_user(&code, sizeof(code), (const void*)h->code_begin) == 0 &&
         (code == RBP_FRAME_CODE_1 || code == RBP_FRAME_CODE_2);
}

/* The blob_top of the blob whose header the scratch just copied: by its first code bytes or its name (a read
 * each), for the blobs that are not plainly sized. Where the loader found no name, any blob without a size
 * may keep an rbp frame. */
static __always_inline __u32 blob_top_of(const struct sampler_scratch* s) {
  const struct blob_header* h = &s->blob;
  if (plain_frame_size(h->frame_size)) {
    return h->frame_complete <= 0 && begins_with_rbp_frame(h) ? BLOB_TOP_RBP : BLOB_TOP_SIZED;
  }
  if (s->jvm.blob_name == 0) return BLOB_TOP_STUB;
  __u64 name = header_field(h, s->jvm.heap_block_header_size + s->jvm.blob_name), text = 0;
  if (bpf_probe_read_user(&text, sizeof(text), (const void*)name) != 0 || text == STUB_ROUTINES_NAME) {
    return BLOB_TOP_STUB;
  }
  return text == ADAPTERS_NAME ? BLOB_TOP_ADAPTER : BLOB_TOP_FRAMELESS;
}

/* Finds the CodeBlob that holds pc, checked (see the blob cache), and leaves what is known of it in the scratch
 * (`blob`; its header words only if read now). Returns 0, or why the walk must stop. A global function,
 * verified once (see find_unwind_row). */
__noinline int find_code_blob(__u32 scratch_key, __u64 pc) {
  struct sampler_scratch* s = get_scratch(scratch_key);
  struct blob_cache* cache = bpf_map_lookup_elem(&blob_caches, &scratch_key);
  if (!s || !cache) return JFRBPF_WALK_UNKNOWN_CODE;
  struct walk* w = &s->walk;
  struct blob_header* h = &s->blob;
  __u64 granule = code_granule(&s->jvm, pc);
  struct blob_cache_entry* entry = blob_cache_entry(cache, granule);
  if (blob_cache_hit(entry, granule, w)) {
    h->blob = entry->blob;
    h->code_begin = entry->code_begin;
    h->frame_size = entry->frame_size;
    h->frame_complete = entry->frame_complete;
    h->top = entry->top;
    return 0;
  }
  const struct jfrbpf_code_heap* heap = code_heap_of(&s->jvm, pc);
  if (!heap) return JFRBPF_WALK_UNKNOWN_CODE;
  /* A stale entry still names the likeliest blob: checking it saves the segment map. Its frame size must
   * match too: where that blob was freed, what is read as a header may now be another blob's code. */
  bool known = entry->granule == granule && entry->tgid == w->tgid && read_blob_header(s, heap, entry->blob, pc) &&
               h->frame_size == entry->frame_size;
  if (!known) {
    __u64 blob = segmap_blob(&s->jvm, heap, pc);
    if (!blob || !read_blob_header(s, heap, blob, pc)) return JFRBPF_WALK_UNKNOWN_CODE;
  }
  h->top = blob_top_of(s);
  entry->granule = granule;
  entry->blob = h->blob;
  entry->code_begin = h->code_begin;
  entry->frame_size = h->frame_size;
  entry->frame_complete = h->frame_complete;
  entry->top = h->top;
  entry->tgid = w->tgid;
  entry->stamp = w->blob_stamp;
  return 0;
}

/* In a stack chunk (frozen_frames.bpf.h), an interpreted frame's fp is kept in words relative to the slot
 * that holds it (the word two below its sp, or its interpreted callee's fp slot), and so is its sender sp,
 * relative to fp (HotSpot's StackChunkFrameStream::fp and next_for_interpreter_frame). */
static __always_inline bool chunk_frame_fp(struct sampler_scratch* s, __u64* fp) {
  struct walk* w = &s->walk;
  if (w->fp_absolute_sp == w->sp) return true;
  __u64 relative = 0;
  if (!read_stack_u64(&s->window, w->sp - 16, &relative)) return false;
  *fp = w->sp - 16 + relative * 8;
  return true;
}

/* An interpreted frame: on a thread's stack, or `frozen` in a stack chunk. */
static __always_inline long step_interpreted(struct sampler_scratch* s, __u32 slot, const bool frozen) {
  struct walk* w = &s->walk;
  const struct jfrbpf_hotspot* jvm = &s->jvm;
  __u64 fp = w->fp;
  if (frozen && !chunk_frame_fp(s, &fp)) return walk_stop(w, JFRBPF_WALK_READ_FAULT);
  if ((fp & 7) != 0 || fp < w->sp || fp - w->sp > INTERPRETER_MAX_FRAME_BYTES) {
    return walk_stop(w, JFRBPF_WALK_BAD_FRAME);
  }
  /* The eight words below rbp (Method*, bcp, sender sp: slots -1..-8 on every JDK since 8), then the saved
   * rbp and the return address at rbp. */
  const __u64* words = stack_words(&s->window, fp - 8 * sizeof(__u64), 10 * sizeof(__u64));
  if (!words) return walk_stop(w, JFRBPF_WALK_READ_FAULT);
  __u64 method = words[(8 + jvm->interp_method_slot) & 7];
  __u64 bcp = words[(8 + jvm->interp_bcp_slot) & 7];
  __u64 sender_sp = words[(8 + jvm->interp_sender_sp_slot) & 7];
  __u64 caller_fp = words[8];
  __u64 caller_pc = words[9];
  s->record.data[slot] = bcp;
  s->record.data[slot + 1] = method;
  if (frozen) {
    sender_sp = fp + sender_sp * 8;
    caller_fp = fp + caller_fp * 8;
    w->fp_absolute_sp = sender_sp;
  }
  if (sender_sp <= fp) return walk_stop(w, JFRBPF_WALK_BAD_FRAME);
  w->pc = caller_pc;
  w->sp = sender_sp;
  w->fp = caller_fp;
  return 0;
}

/* step_interpreted in a stack chunk: a global function, verified once. */
__noinline int step_frozen_interpreted(__u32 scratch_key, __u32 slot) {
  struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s) return 1;
  return step_interpreted(s, slot & (JFRBPF_MAX_USER_FRAMES * 2 - 1), true) != 0;
}

enum compiled_edge {
  EDGE_NONE,     /* the frame is complete: unwind it by its size */
  EDGE_UNWOUND,  /* caught while built or torn down, and unwound */
  EDGE_UNKNOWN,  /* in the prologue, at an instruction the walker does not know: no guess */
};

/* Where a frame of `frame_bytes` whose state the instruction at pc leaves open has its return address: at
 * sp (not built yet, or already gone) or at the top of the frame (built). Of the two slots only the right one
 * holds a return address into the code cache, where every compiled method's caller is. */
enum frame_state { FRAME_BUILT, FRAME_ABSENT, FRAME_UNCLEAR };

static __always_inline enum frame_state frame_state_by_return(struct sampler_scratch* s, __s32 frame_bytes) {
  const __u64 sp = s->walk.sp;
  __u64 absent = 0, built = 0;
  if (!read_stack_u64(&s->window, sp, &absent) || !read_stack_u64(&s->window, sp + frame_bytes - 8, &built)) {
    return FRAME_UNCLEAR;
  }
  bool absent_is_code = absent >= s->jvm.code_low && absent < s->jvm.code_high;
  bool built_is_code = built >= s->jvm.code_low && built < s->jvm.code_high;
  if (absent_is_code == built_is_code) return FRAME_UNCLEAR;
  return built_is_code ? FRAME_BUILT : FRAME_ABSENT;
}

static __always_inline __s32 code_s32(const __u8* code) {
  return (__s32)(code[0] | (__u32)code[1] << 8 | (__u32)code[2] << 16 | (__u32)code[3] << 24);
}

/* Where the return address is when pc is in the prologue, which runs, in HotSpot's order: the inline cache
 * check of the unverified entry (loads and compares of the receiver's klass, a jump back to the miss stub,
 * alignment nops); in the native wrapper of Object.hashCode or System.identityHashCode, the fast path that
 * returns the hash from the object's header (its load, shift, test, mask and jumps); then either C2's frame
 * without a stack bang (sub rsp, the whole frame; then rbp stored at its top) or the stack bang, push rbp,
 * [mov rbp, rsp] and sub rsp (C1, native wrappers, and C2 with a bang); then the nmethod entry barrier's check
 * (cmp on r15, a forward jump or a call), after which the frame is complete. The frame size tells the two subs
 * apart: without push rbp it also allocates rbp's slot. */
static __always_inline enum compiled_edge prologue_edge(struct sampler_scratch* s, const __u8* code, __s32 frame_bytes,
                                                        __u64* ra_at, __u64* fp_at) {
  const __u64 sp = s->walk.sp;
  __u8 op = code[0];
  if (op == 0x55 || op == 0x89) { /* push rbp, or a stack bang (mov %eax,-N(%rsp)): nothing pushed yet */
    *ra_at = sp;
  } else if (op == 0x48 && (code[1] == 0x81 || code[1] == 0x83) && code[2] == 0xec) { /* sub $imm, %rsp */
    __s32 imm = code[1] == 0x83 ? (__s8)code[3] : code_s32(&code[3]);
    if (imm == frame_bytes - 8) {
      *ra_at = sp;
    } else if (imm == frame_bytes - 16) {
      *fp_at = sp;
      *ra_at = sp + 8;
    } else {
      return EDGE_UNKNOWN;
    }
  } else if (op == 0x48 && ((code[1] == 0x89 && code[2] == 0xe5) || (code[1] == 0x8b && code[2] == 0xec))) {
    /* mov %rsp,%rbp (PreserveFramePointer): after push rbp when a sub rsp follows, after the whole frame and
     * rbp's store when an add to rbp follows */
    if (code[3] != 0x48 || (code[4] != 0x83 && code[4] != 0x81)) return EDGE_UNKNOWN;
    if (code[5] == 0xc5) return EDGE_NONE;
    if (code[5] != 0xec) return EDGE_UNKNOWN;
    *fp_at = sp;
    *ra_at = sp + 8;
  } else if (op == 0x48 && code[1] == 0x89 && (code[2] == 0x6c || code[2] == 0xac) && code[3] == 0x24) {
    *ra_at = sp + frame_bytes - 8; /* mov %rbp,N(%rsp): frame allocated, rbp still the caller's */
  } else if (op == 0x48 && (((code[1] == 0x83 || code[1] == 0x81) && code[2] == 0xc5) ||
                            (code[1] == 0x8d && (code[2] == 0x6c || code[2] == 0xac) && code[3] == 0x24))) {
    return EDGE_NONE; /* add $N,%rbp or lea N(%rsp),%rbp (PreserveFramePointer) after rbp's store */
  } else if (op == 0x41 && (code[1] == 0x81 || code[1] == 0x83) && (code[2] == 0x7f || code[2] == 0xbf)) {
    return EDGE_NONE; /* the entry barrier's cmp on r15 */
  } else if (op == 0x0f && (code[1] == 0x84 || code[1] == 0x85)) {
    /* Forward: the entry barrier's jump to its slow path, or a jump of the hash's fast path; backward: the
     * inline cache check's jump to the miss stub. */
    if (code_s32(&code[2]) > 0 && frame_state_by_return(s, frame_bytes) != FRAME_ABSENT) return EDGE_NONE;
    *ra_at = sp;
  } else if (op == 0xc3 ||
             (op == 0x48 && ((code[1] == 0xf7 && code[2] == 0xc0) || (code[1] == 0x81 && code[2] == 0xe0)))) {
    *ra_at = sp; /* the hash's fast path: the header's bits tested and masked (test, and), the hash returned */
  } else if (op == 0xe8 || ((op == 0x74 || op == 0x75) && (__s8)code[1] > 0)) {
    return EDGE_NONE; /* the entry barrier's call, or its jump over it */
  } else if (op == 0x90 || (op == 0x66 && (code[1] == 0x90 || code[1] == 0x0f || code[1] == 0x66)) ||
             (op == 0x0f && code[1] == 0x1f)) {
    /* Alignment nops: before the verified entry (nothing pushed) or before the entry barrier's check (the
     * frame complete). */
    enum frame_state state = frame_state_by_return(s, frame_bytes);
    if (state == FRAME_UNCLEAR) return EDGE_UNKNOWN;
    if (state == FRAME_BUILT) return EDGE_NONE;
    *ra_at = sp;
  } else if ((op & 0xf0) == 0x40 && (code[1] == 0x8b || code[1] == 0x3b || code[1] == 0x03 || code[1] == 0xc1 ||
                                     code[1] == 0x33 || (code[1] & 0xf8) == 0xb8)) {
    *ra_at = sp; /* the inline cache check: the receiver's klass loaded, decoded and compared */
  } else {
    return EDGE_UNKNOWN;
  }
  return EDGE_UNWOUND;
}

/* A frame caught half built or half gone: its return address at `ra_at`, its caller's rbp at `fp_at` (0: still
 * in rbp). */
static __always_inline enum compiled_edge unwind_edge_at(struct sampler_scratch* s, __u64 ra_at, __u64 fp_at) {
  struct walk* w = &s->walk;
  __u64 caller_pc = 0, caller_fp = w->fp;
  if (!read_stack_u64(&s->window, ra_at, &caller_pc) || (fp_at && !read_stack_u64(&s->window, fp_at, &caller_fp))) {
    return EDGE_NONE;
  }
  w->pc = caller_pc;
  w->fp = caller_fp;
  w->sp = ra_at + 8;
  return EDGE_UNWOUND;
}

/* The top frame of a sample may be caught while its frame is being built or torn down; only then is the
 * frame size not yet (or no longer) the distance to the return address. Decodes the instruction at pc. Needs
 * the blob's header in the scratch. */
/* The 8 code bytes at the walk's pc, from the code bytes cache or read (and cached when the stamps last). */
static __always_inline bool top_code_bytes(struct sampler_scratch* s, __u8 code[8]) {
  const struct walk* w = &s->walk;
  __u32 key = w->scratch_key;
  struct code_bytes_cache* cache = bpf_map_lookup_elem(&code_bytes_caches, &key);
  if (!cache) return false;
  struct code_bytes_entry* entry =
      &cache->entries[(w->pc * 0x9e3779b97f4a7c15ull) >> (64 - CODE_BYTES_CACHE_INDEX_BITS)];
  if (entry->pc == w->pc && entry->tgid == w->tgid && entry->stamp == w->blob_stamp) {
    __builtin_memcpy(code, entry->bytes, 8);
    return true;
  }
  if (bpf_probe_read_user(code, 8, (const void*)w->pc) != 0) return false;
  if (w->blob_stamp & 1) return true; /* a stamp of this walk alone: no later walk could use the entry */
  entry->pc = w->pc;
  entry->tgid = w->tgid;
  entry->stamp = w->blob_stamp;
  __builtin_memcpy(entry->bytes, code, 8);
  return true;
}

static __always_inline enum compiled_edge unwind_compiled_edge(struct sampler_scratch* s) {
  struct walk* w = &s->walk;
  const struct blob_header* h = &s->blob;
  __u8 code[8] = {};
  if (!top_code_bytes(s, code)) return EDGE_NONE;
  __u64 ra_at = 0, fp_at = 0;
  if (h->frame_complete > 0 && w->pc < h->code_begin + h->frame_complete) {
    enum compiled_edge edge = prologue_edge(s, code, h->frame_size * 8, &ra_at, &fp_at);
    if (edge != EDGE_UNWOUND) return edge;
  } else if (code[0] == 0xc3) { /* ret */
    ra_at = w->sp;
  } else if (code[0] == 0x5d) { /* pop rbp */
    fp_at = w->sp;
    ra_at = w->sp + 8;
  } else if ((code[0] == 0x49 || code[0] == 0x4c) && code[1] == 0x3b && (code[2] == 0x67 || code[2] == 0xa7)) {
    ra_at = w->sp; /* safepoint poll on return (cmp N(%r15),%rsp) after pop rbp */
  } else if (code[0] == 0x0f && code[1] == 0x87) {
    /* ja: the return poll's jump to its stub once the frame is gone, or one of the many in the method's body
     * (an array length check, say), where the frame is whole or displaced (unwind_sized_frame) */
    if (frame_state_by_return(s, h->frame_size * 8) != FRAME_ABSENT) return EDGE_NONE;
    ra_at = w->sp;
  } else {
    return EDGE_NONE;
  }
  return unwind_edge_at(s, ra_at, fp_at);
}

/* A stub that keeps an rbp frame (arraycopy and the other StubRoutines, C1's runtime stubs) caught at its first
 * or last instructions, where rbp is still, or again, its caller's: at `push rbp`, at the `mov rsp,rbp` after
 * it, or at `ret` after `leave`. Decodes the instruction at pc; EDGE_NONE when the frame is whole. */
static __always_inline enum compiled_edge unwind_stub_edge(struct sampler_scratch* s) {
  struct walk* w = &s->walk;
  __u8 code[8] = {};
  if (!top_code_bytes(s, code)) return EDGE_NONE;
  __u64 ra_at = w->sp, fp_at = 0;
  if (code[0] == 0x48 && ((code[1] == 0x8b && code[2] == 0xec) || (code[1] == 0x89 && code[2] == 0xe5))) {
    fp_at = w->sp;
    ra_at = w->sp + 8;
  } else if (code[0] != 0x55 && code[0] != 0xc3) {
    return EDGE_NONE;
  }
  return unwind_edge_at(s, ra_at, fp_at);
}

/* The cache entry of the blob that holds pc if it holds (see the blob cache), else 0. */
static __always_inline const struct blob_cache_entry* checked_blob(const struct sampler_scratch* s,
                                                                   struct blob_cache* cache, __u64 pc) {
  __u64 granule = code_granule(&s->jvm, pc);
  const struct blob_cache_entry* entry = blob_cache_entry(cache, granule);
  return blob_cache_hit(entry, granule, &s->walk) ? entry : 0;
}

/* Code inside a compiled method may hold rsp below its frame for a while: C2's string intrinsics push
 * registers (String.compareTo one word, indexOf up to eight), stack-to-stack spill copies and float
 * conversions one, C1 pushes around its subtype checks, and JDK 25's G1 and ZGC barrier stubs save the live
 * registers before they call into libjvm. A frame caught there, or below a call made from there, has its
 * return address that many words further up than its size says: what its size points at is a spill slot or
 * the saved rbp. Every compiled method's caller is in the code cache (compiled code, the interpreter, the call
 * stub); so where the word at the frame's size, `ra`, is neither there nor native code with unwind
 * information (what a stub called from native code returns to), the return address is the first word above
 * it that is in the code cache, within DISPLACED_MAX_WORDS. Unwinds the frame and returns 1 if it finds one, else
 * returns 0 and leaves the walk as it was. A global function: verified once, not at every inlined unwind. */
#define DISPLACED_MAX_WORDS 32

static __always_inline bool in_code_cache(const struct sampler_scratch* s, __u64 pc) {
  return pc >= s->jvm.code_low && pc < s->jvm.code_high;
}

/* Where a return address may lead: the code cache, or native code with unwind information. */
static __always_inline bool leads_to_code(struct sampler_scratch* s, __u64 ra) {
  if (in_code_cache(s, ra)) return true;
  __u64 packed = cached_unwind_row(&s->walk, ra - 1);
  return ((const struct jfrbpf_unwind_row*)&packed)->kind != JFRBPF_UNWIND_NONE;
}

__noinline int unwind_displaced_frame(__u32 scratch_key, __u64 sender_sp, __u64 ra) {
  struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s) return 0;
  struct walk* w = &s->walk;
  if (leads_to_code(s, ra)) return 0;
  for (int words = 1; words <= DISPLACED_MAX_WORDS; words++) {
    __u64 at = sender_sp - 16 + 8 * (__u64)words;
    __u64 frame[2]; /* saved rbp, return address */
    if (!read_stack_pair(&s->window, at, frame)) return 0;
    if (!in_code_cache(s, frame[1])) continue;
    w->pc = frame[1];
    w->sp = at + 16;
    w->fp = frame[0];
    count(JFRBPF_COUNTER_WALK_DISPLACED_FRAME);
    return 1;
  }
  return 0;
}

/* A compiled frame of `frame_size` words: the saved rbp and the return address are its two top words, or
 * further up where code in the method holds rsp lower (see displaced_words). */
static __always_inline long unwind_sized_frame(struct sampler_scratch* s, __s32 frame_size) {
  struct walk* w = &s->walk;
  __u64 sender_sp = w->sp + (__u64)frame_size * 8;
  __u64 frame[2]; /* saved rbp, return address: the two words below the sender's sp */
  if (!read_stack_pair(&s->window, sender_sp - 16, frame)) return walk_stop(w, JFRBPF_WALK_READ_FAULT);
  /* A frozen frame is never displaced: the oldest of a chunk may return to null. */
  if (!w->chunk && !in_code_cache(s, frame[1]) && unwind_displaced_frame(w->scratch_key, sender_sp, frame[1])) {
    return 0;
  }
  w->pc = frame[1];
  w->sp = sender_sp;
  w->fp = frame[0];
  return 0;
}

#define POP_RAX 0x58

static __always_inline bool mov_rsp_to_r13(const __u8* code) {
  return code[0] == 0x4c && code[1] == 0x8b && code[2] == 0xec;
}

/* A c2i adapter makes room for the interpreter's arguments: pop %rax; mov %rsp,%r13; sub $N,%rsp; and only then
 * mov %rax,(%rsp) puts the return address at sp again. Caught between the pop and the store, the adapter has
 * its return address right below its caller's sp, which is sp before the sub and sp + N at the store. Returns
 * that sp there, else 0. */
static __always_inline __u64 c2i_caller_sp(const struct sampler_scratch* s) {
  const __u64 sp = s->walk.sp;
  __u8 code[16] = {}; /* from 8 bytes before pc */
  if (bpf_probe_read_user(code, sizeof(code), (const void*)(s->walk.pc - 8)) != 0) return 0;
  const __u8* at = &code[8];
  if (mov_rsp_to_r13(at)) return code[7] == POP_RAX ? sp : 0;
  if (at[0] == 0x48 && (at[1] == 0x83 || at[1] == 0x81) && at[2] == 0xec) { /* sub */
    return code[4] == POP_RAX && mov_rsp_to_r13(&code[5]) ? sp : 0;
  }
  if (at[0] != 0x48 || at[1] != 0x89 || at[2] != 0x04 || at[3] != 0x24) return 0; /* mov %rax,(%rsp) */
  if (code[4] == 0x48 && code[5] == 0x83 && code[6] == 0xec) return sp + code[7]; /* after sub $imm8 */
  if (code[1] == 0x48 && code[2] == 0x81 && code[3] == 0xec) return sp + (__u32)code_s32(&code[4]);
  return 0;
}

/* The top frame of a stub without a recorded size: an rbp frame, or none (a leaf, such as C1's
 * slow_subtype_check, which pushes registers first and is called with two more pushed by its caller). The rbp
 * frame holds, in a StubRoutines buffer, where it leads to code; otherwise the return address is at sp, or
 * where pushes moved it: the first word above in the code cache (a stub that pushes is called from Java code),
 * within DISPLACED_MAX_WORDS. A c2i adapter that made room for the interpreter's arguments has its return
 * address at sp again while its caller's sp is a few words up: the caller's unwind finds that frame
 * displaced. Returns 0, or why the walk stops. A global function: verified once. */
__noinline int unwind_sizeless_stub(__u32 scratch_key) {
  struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s) return JFRBPF_WALK_BAD_FRAME;
  struct walk* w = &s->walk;
  __u64 fp = w->fp;
  __u64 frame[2]; /* saved rbp, return address */
  if (s->blob.top == BLOB_TOP_ADAPTER) {
    __u64 caller_sp = c2i_caller_sp(s), ra = 0;
    if (caller_sp && read_stack_u64(&s->window, caller_sp - 8, &ra) && in_code_cache(s, ra)) {
      w->pc = ra;
      w->sp = caller_sp;
      return 0;
    }
  }
  if (s->blob.top < BLOB_TOP_FRAMELESS && (fp & 7) == 0 && fp >= w->sp && fp - w->sp < STUB_MAX_FRAME_BYTES &&
      read_stack_pair(&s->window, fp, frame) && leads_to_code(s, frame[1])) {
    w->pc = frame[1];
    w->sp = fp + 16;
    w->fp = frame[0];
    return 0;
  }
  for (int words = 0; words < DISPLACED_MAX_WORDS; words++) {
    __u64 ra = 0;
    if (!read_stack_u64(&s->window, w->sp + 8 * (__u64)words, &ra)) return JFRBPF_WALK_READ_FAULT;
    if (words == 0 ? !leads_to_code(s, ra) : !in_code_cache(s, ra)) continue;
    if (words > 0) count(JFRBPF_COUNTER_WALK_DISPLACED_FRAME);
    w->pc = ra;
    w->sp += 8 * (__u64)words + 8;
    return 0;
  }
  return JFRBPF_WALK_BAD_FRAME;
}

#define LEAVE 0xc9

/* lea -0x8(%rsp,%rcx,8),%r14 (4c 8d 74 cc f8): the entry's first instruction after the pop, for the locals. */
static __always_inline bool lea_locals(const __u8* code) {
  return code[0] == 0x4c && code[1] == 0x8d && code[2] == 0x74 && code[3] == 0xcc && code[4] == 0xf8;
}

/* The top frame in the interpreter may not be built: an interpreted method's entry builds it only after it has
 * sized its locals, checked the stack and pushed them (HotSpot's generate_normal_entry), and its return
 * (remove_activation) tears it down before it jumps back. Meanwhile rbp is the caller's, and the return
 * address is
 * - in the entry: at sp, but while the entry holds it in rax, out of the way of the locals (right after its
 *   pop, and the lea and test that follow, it is still in the word below sp; at the mov %rsp,%rbp that builds
 *   the frame, above the pushed rbp). r13 is the caller's sp: sp + 8, or more where a c2i adapter made room
 *   for the arguments;
 * - in the return: at sp after its leave, the frame's slots still below (its caller's sp two words down);
 *   then in r13, where it is popped, sp being the caller's from the next instruction on.
 * Elsewhere r13 is the bcp, or what a compiled callee that just returned left in it (below sp, if a stack
 * address at all): neither code nor the caller's sp. Where the caller is interpreted, its last_sp, set as it
 * jumps to its callee, is that caller's sp too (it is so also at that very jump, where the frame at rbp is
 * the top frame's own: unwound from there, the walk goes on with it all the same). Unwinds such a frame to its
 * caller (its Method* is in rbx alone: the frame is recorded without one) and returns 1; returns 0, the walk as
 * it was, for a built frame. A global function: verified once. */
__noinline int unwind_unbuilt_interpreted(__u32 scratch_key) {
  struct sampler_scratch* s = get_scratch(scratch_key);
  if (!s || s->walk.depth != 1) return 0;
  struct walk* w = &s->walk;
  const __u64 sp = w->sp, fp = w->fp;
  const __u64 r13 = s->record.top_bcp_register; /* the sample's: only the top frame's */
  const bool r13_is_code = in_code_cache(s, r13);
  const bool r13_is_sp = (r13 & 7) == 0 && r13 >= sp && r13 - sp < STUB_MAX_FRAME_BYTES;
  __u64 ra = r13, caller_sp = sp, at_sp = 0;
  if (!read_stack_u64(&s->window, sp, &at_sp)) return 0;
  /* A built frame, the common case, needs no read of the code. */
  if (!r13_is_code && !r13_is_sp && !in_code_cache(s, at_sp)) return 0;
  __u8 code[16] = {}; /* from 12 bytes before pc */
  if (bpf_probe_read_user(code, sizeof(code), (const void*)(w->pc - 12)) != 0) return 0;
  const __u8* at = &code[12];
  if (r13_is_code) {
    /* At the return's mov %rbx,%rsp, sp is still two words above the torn-down frame's rbp slot. */
    if (at[0] == 0x48 && at[1] == 0x8b && at[2] == 0xe3 && !read_stack_u64(&s->window, sp - 24, &caller_sp)) return 0;
  } else {
    /* Right after the return's leave, or at its pop %r13, which JDK 25 puts 9 bytes after it. */
    bool left = code[11] == LEAVE || (at[0] == 0x41 && at[1] == 0x5d && code[3] == LEAVE);
    bool building = code[11] == 0x55 && at[0] == 0x48 && /* mov %rsp,%rbp after push %rbp */
                    ((at[1] == 0x8b && at[2] == 0xec) || (at[1] == 0x89 && at[2] == 0xe5));
    bool popped = code[11] == POP_RAX || (code[6] == POP_RAX && lea_locals(&code[7])) || /* then test %edx,%edx */
                  (code[4] == POP_RAX && lea_locals(&code[5]) && code[10] == 0x85 && code[11] == 0xd2);
    ra = at_sp;
    if (left && in_code_cache(s, at_sp)) {
      if (!read_stack_u64(&s->window, sp - 16, &caller_sp)) return 0;
    } else if (r13_is_sp && r13 >= sp + 8 && in_code_cache(s, at_sp)) {
      caller_sp = r13;
    } else if (r13_is_sp && (building || popped)) {
      if (!read_stack_u64(&s->window, building ? sp + 8 : sp - 8, &ra)) return 0;
      caller_sp = r13;
    } else {
      return 0;
    }
  }
  if (!in_code_cache(s, ra) || caller_sp < sp || caller_sp - sp >= STUB_MAX_FRAME_BYTES) return 0;
  bool from_interpreter = ra >= s->jvm.interpreter_low && ra < s->jvm.interpreter_high;
  if (from_interpreter && (fp & 7) == 0 && fp > sp && fp - sp <= INTERPRETER_MAX_FRAME_BYTES) {
    __u64 last_sp = 0;
    if (!read_stack_u64(&s->window, fp + (__s64)s->jvm.interp_last_sp_slot * 8, &last_sp)) return 0;
    if (last_sp != caller_sp && (__s64)last_sp != (__s64)(caller_sp - fp) >> 3) return 0;
  }
  w->pc = ra;
  w->sp = caller_sp;
  return 1;
}

/* A frame that keeps rbp: the saved rbp and the return address are at rbp. False when rbp cannot be this
 * frame's (not above sp on this stack); else unwound, or stopped at a read fault. */
static __always_inline bool unwind_rbp_frame(struct sampler_scratch* s, long* stopped) {
  struct walk* w = &s->walk;
  __u64 fp = w->fp;
  if ((fp & 7) != 0 || fp < w->sp || fp - w->sp >= STUB_MAX_FRAME_BYTES) return false;
  __u64 frame[2]; /* saved rbp, return address */
  if (!read_stack_pair(&s->window, fp, frame)) {
    *stopped = walk_stop(w, JFRBPF_WALK_READ_FAULT);
    return true;
  }
  w->pc = frame[1];
  w->sp = fp + 16;
  w->fp = frame[0];
  *stopped = 0;
  return true;
}

/* HotSpot's nmethod entry barrier stub pushes a cookie (-1 unless it is deoptimizing the caller) before it
 * builds its rbp frame: saved rbp, cookie, return address. False when pc is not in that stub or rbp does not
 * hold that frame (the stub's first and last instructions); else unwound, or stopped at a read fault. */
static __always_inline bool unwind_entry_barrier_frame(struct sampler_scratch* s, long* stopped) {
  struct walk* w = &s->walk;
  if (w->pc - s->jvm.entry_barrier >= s->jvm.entry_barrier_size) return false;
  __u64 fp = w->fp;
  if ((fp & 7) != 0 || fp < w->sp || fp - w->sp >= STUB_MAX_FRAME_BYTES) return false;
  const __u64* frame = stack_words(&s->window, fp, 24);
  if (!frame) {
    *stopped = walk_stop(w, JFRBPF_WALK_READ_FAULT);
    return true;
  }
  if (frame[1] != ~0ull) return false;
  w->pc = frame[2];
  w->sp = fp + 24;
  w->fp = frame[0];
  *stopped = 0;
  return true;
}

/* A compiled or stub frame below the top: its pc is a return address, so the frame is complete. */
static __always_inline long step_code_below_top(struct sampler_scratch* s, struct blob_cache* cache) {
  struct walk* w = &s->walk;
  long stopped = 0;
  /* Every Java stack (and every JNI upcall) enters Java through the call stub: its frame needs no blob. */
  if (w->pc == s->jvm.call_stub_return && unwind_rbp_frame(s, &stopped)) return stopped;
  if (unwind_entry_barrier_frame(s, &stopped)) return stopped;
  const struct blob_cache_entry* entry = checked_blob(s, cache, w->pc);
  __s32 frame_size = 0;
  if (entry) {
    frame_size = entry->frame_size;
  } else {
    int status = find_code_blob(w->scratch_key, w->pc);
    if (status != 0) return walk_stop(w, status);
    frame_size = s->blob.frame_size;
  }
  if (plain_frame_size(frame_size)) return unwind_sized_frame(s, frame_size);
  /* Stubs without a recorded size keep an rbp frame. */
  if (unwind_rbp_frame(s, &stopped)) return stopped;
  return walk_stop(w, JFRBPF_WALK_BAD_FRAME);
}

/* The top frame is checked with its whole header, which the prologue and epilogue decoding use. */
static __always_inline long step_code_cache(struct sampler_scratch* s, struct blob_cache* cache) {
  struct walk* w = &s->walk;
  if (w->depth != 1) return step_code_below_top(s, cache);
  long stopped = 0;
  if (unwind_entry_barrier_frame(s, &stopped)) return stopped;
  int status = find_code_blob(w->scratch_key, w->pc);
  if (status != 0) return walk_stop(w, status);
  __s32 frame_size = s->blob.frame_size;
  if (!plain_frame_size(frame_size)) {
    if (unwind_stub_edge(s) == EDGE_UNWOUND) return 0;
    status = unwind_sizeless_stub(w->scratch_key);
    return status != 0 ? walk_stop(w, status) : 0;
  }
  /* A stub that builds an rbp frame first and then saves registers, which its size counts: C1's runtime stubs,
   * without a prologue offset, and SharedRuntime's resolve and wrong-method stubs, whose prologue (the saving)
   * the decoding does not know. */
  bool rbp_stub = s->blob.top == BLOB_TOP_RBP;
  enum compiled_edge edge = rbp_stub ? EDGE_UNKNOWN : unwind_compiled_edge(s);
  if (edge == EDGE_UNWOUND) return 0;
  if (edge == EDGE_UNKNOWN) {
    if (rbp_stub || begins_with_rbp_frame(&s->blob)) {
      if (unwind_stub_edge(s) == EDGE_UNWOUND) return 0;
      if (unwind_rbp_frame(s, &stopped)) return stopped;
    }
    return walk_stop(w, JFRBPF_WALK_BAD_FRAME);
  }
  return unwind_sized_frame(s, frame_size);
}

/* A Java thread in native or VM code whose native frames could not be unwound continues at its last Java
 * frame, which HotSpot publishes in the thread's JavaFrameAnchor. Returns true if the walk can go on. */
static __always_inline bool jump_to_java_anchor(struct sampler_scratch* s, __u64 java_thread) {
  struct walk* w = &s->walk;
  const struct jfrbpf_hotspot* jvm = &s->jvm;
  if (!java_thread || w->anchor_used) return false;
  __u64 sp = 0, fp = 0, pc = 0;
  if (!read_user_u64(java_thread + jvm->anchor_sp, &sp) || sp == 0 || sp <= w->sp) return false;
  if (!read_user_u64(java_thread + jvm->anchor_fp, &fp) || !read_user_u64(java_thread + jvm->anchor_pc, &pc)) {
    return false;
  }
  if (pc == 0 && !read_stack_u64(&s->window, sp - 8, &pc)) return false;
  w->anchor_used = 1;
  w->pc = pc;
  w->sp = sp;
  w->fp = fp;
  return true;
}

#endif
