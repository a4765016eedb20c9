/* Which Java thread a CPU sample (or an off-CPU interval) of a JVM thread ran in. A virtual thread runs mounted on a carrier (a platform
 * thread), inside a continuation whose frames sit on the carrier's stack below its ContinuationEntry. JDK 25's
 * own sampler gives such a sample to the virtual thread (JfrThreadLocal::is_vthread with
 * Continuation::is_frame_in_continuation); the walker does the same with what the JavaThread holds:
 * _cont_entry above the interrupted sp puts the sample inside the innermost continuation, and _monitor_owner_id
 * is the Java id of the thread current then. Whether that is a virtual thread's id or the carrier's own (a
 * continuation run outside a virtual thread, or the moments of a mount and an unmount) is for userspace to
 * tell: it knows each platform thread's Java id. Where the layout has _vthread, the Thread object's address
 * too, for userspace to read its name. Four user reads at most, one outside continuations, and none
 * in a JVM whose layout lacks the fields (before JDK 24) or in a thread that is not a JavaThread. */
#ifndef JFRBPF_VIRTUAL_THREADS_BPF_H
#define JFRBPF_VIRTUAL_THREADS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "sampler_maps.bpf.h"
#include "walker_state.bpf.h"

/* Far more than any thread stack HotSpot makes (-Xss is at most 1 GiB): a ContinuationEntry further above sp
 * than this was not read from a JavaThread. */
#define MAX_THREAD_STACK_BYTES (1ULL << 30)

/* Marks the record begun in `s` (its start registers set, the walk not yet run) as taken in a continuation,
 * with the thread current then. */
static __always_inline void note_continuation(struct sampler_scratch* s) {
  const struct jfrbpf_hotspot* jvm = &s->jvm;
  if (!s->walk.has_jvm || jvm->cont_entry == 0 || jvm->monitor_owner_id == 0) return;
  __u64 java_thread = walk_java_thread(s);
  if (java_thread == 0) return;
  __u64 entry = 0, current = 0;
  /* The ContinuationEntry is the frame of enterSpecial: the continuation's frames are below it, on the stack. */
  if (!read_user_u64(java_thread + jvm->cont_entry, &entry) || entry <= s->walk.sp ||
      entry - s->walk.sp > MAX_THREAD_STACK_BYTES) {
    return;
  }
  if (!read_user_u64(java_thread + jvm->monitor_owner_id, &current)) return;
  s->record.flags |= JFRBPF_SAMPLE_IN_CONTINUATION;
  s->record.current_thread_id = (__s64)current;
  /* _vthread is an OopHandle: the address of a slot that holds the Thread object's address. */
  __u64 handle = 0, thread = 0;
  if (jvm->vthread != 0 && read_user_u64(java_thread + jvm->vthread, &handle) && handle != 0 &&
      read_user_u64(handle, &thread)) {
    s->record.current_thread_object = thread;
  }
}

#endif
