/* What the BPF stack walker must know about one HotSpot JVM to unwind its Java frames without frame
 * pointers: where the code cache and the interpreter are, how to find the CodeBlob of a pc through the
 * segment maps, and where CodeBlob, interpreter frames and JavaFrameAnchor keep what it reads. Userspace
 * fills it from the JVM's own VMStructs (reported by the agent); nothing here is hard-coded per JDK. */
#ifndef JFRBPF_HOTSPOT_ABI_H
#define JFRBPF_HOTSPOT_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define JFRBPF_MAX_CODE_HEAPS 4
#define JFRBPF_SEGMAP_MAX_HOPS 16 /* the longest chain OTel saw is 9 (JDK 8) */
#define JFRBPF_BLOB_HEADER_MAX 128 /* a power of two: the walker masks offsets into its copy with it */

struct jfrbpf_code_heap {
  __u64 low;    /* reserved range [low, high) */
  __u64 high;
  __u64 segmap; /* address of the segment map's byte array */
  __u32 log2_segment_size;
  __u32 reserved;
};

struct jfrbpf_hotspot {
  __u64 code_low; /* the whole code cache, for a quick "is this Java code?" test */
  __u64 code_high;
  __u64 interpreter_low; /* the template interpreter's code */
  __u64 interpreter_high;
  struct jfrbpf_code_heap heaps[JFRBPF_MAX_CODE_HEAPS];
  __u32 heap_count;
  __u32 heap_block_header_size;   /* sizeof(HeapBlock): the CodeBlob follows the block header */
  __u32 heap_block_length;        /* offsetof(HeapBlock, _header._length), in segments */
  __u32 heap_block_length_size;   /* its width: 8 (size_t) before JDK 24, 4 (uint32_t) since */
  __u32 heap_block_used;          /* offsetof(HeapBlock, _header._used): bool */
  __u32 blob_header_bytes;        /* what to copy from the HeapBlock on to cover every CodeBlob field below */
  __u32 code_granule_shift;       /* log2 of the smallest segment of any heap: a granule is in one blob */
  __u32 blob_frame_size;          /* offsetof(CodeBlob, _frame_size): int, words incl. return address + rbp */
  __u32 blob_frame_complete;      /* offsetof(CodeBlob, _frame_complete_offset), from code begin */
  __u32 blob_frame_complete_size; /* its width: 4 (int) before JDK 23, 2 (int16_t) since */
  __u32 blob_code_begin;          /* offsetof(CodeBlob, _code_begin) (pointer) or _code_offset (int) */
  __u32 blob_code_begin_is_offset;
  __u32 blob_name;                /* offsetof(CodeBlob, _name) (const char*); 0 if unknown */
  __s32 interp_method_slot;       /* frame slots, in words from rbp */
  __s32 interp_bcp_slot;
  __s32 interp_sender_sp_slot;
  __s32 interp_last_sp_slot;      /* its sp while it calls a Java method (the return address right below): */
                                  /* an address, since JDK 22 in words from rbp; 0 while it calls none */
  __u32 anchor_sp;                /* offsets from JavaThread* of _anchor._last_Java_sp/_fp/_pc */
  __u32 anchor_fp;
  __u32 anchor_pc;
  __u64 call_stub_return; /* StubRoutines::_call_stub_return_address: the entry frame's return address, 0 if
                             unknown; that frame keeps rbp and its blob is never freed */
  __u64 entry_barrier;      /* StubRoutines' nmethod entry barrier stub [entry_barrier, + its size); size 0 if */
  __u64 entry_barrier_size; /* unknown. Its frame has a cookie word between rbp's slot and the return address */
  __u32 code_frees_watched; /* a uprobe sees the code heap free blocks: the walker may trust blobs it checked */
  __u32 reserved;           /* until the next free (see bpf/hotspot_frames.bpf.h) */
  __u32 cont_entry;         /* offsets from JavaThread* of _cont_entry (ContinuationEntry*) and */
  __u32 monitor_owner_id;   /* _monitor_owner_id (int64_t, the current thread's Java id): JDK 24+; both 0 in */
                            /* older JVMs, where samples are never attributed to virtual threads */
  /* A mounted virtual thread's frames below the few the JVM thawed onto its carrier's stack stay frozen in
   * its continuation's stack chunks, on the Java heap (bpf/frozen_frames.bpf.h). chunk_stack 0: not walked. */
  __u64 return_barrier;      /* StubRoutines' cont_returnBarrier stub [return_barrier, + its size): the */
  __u64 return_barrier_size; /* return address of the bottom thawed frame while older ones are frozen */
  __u64 continuation_return; /* ContinuationEntry::_return_pc: where a continuation's bottom frame returns */
  __u64 narrow_oop_base;     /* CompressedOops::_base and _shift, where reference fields are narrow oops */
  __u32 narrow_oop_shift;
  __u32 narrow_oops;
  __u32 vthread;      /* offset from JavaThread* of _vthread: an OopHandle, the address of the current thread's oop */
  __u32 vthread_cont; /* offsets in Java objects of VirtualThread.cont, Continuation.tail (the youngest */
  __u32 cont_tail;    /* chunk) and StackChunk.parent (an older chunk); then of StackChunk.size, sp and */
  __u32 chunk_parent; /* bottom: ints, in words from the chunk's stack; and of the stack itself */
  __u32 chunk_size;
  __u32 chunk_sp;
  __u32 chunk_bottom;
  __u32 chunk_stack;
};

#endif
