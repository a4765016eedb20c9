/* The ABI between the method-trace uprobe program and userspace (JEP 520 from outside the JVM).
 *
 * Instrumented bytecode calls the agent's hook class, which times the invocation in Java code
 * (jvmsupport/agent/hook_class.h). A traced invocation at or over the threshold then calls the agent's
 * trace stub (jvmsupport/agent/hook_stubs.h), traced(hook index, entry time, duration, detail, address), which starts with a 5-byte NOP where userspace
 * attaches a uprobe: the program walks the stack from there (the stubs, the traced method, its callers)
 * and sends a trace record to the traces ring buffer. */
#ifndef JFRBPF_METHOD_TIMER_ABI_H
#define JFRBPF_METHOD_TIMER_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "sampler_abi.h"

/* Hook index layout; jvmsupport/protocol/timing_records.h spells the same bits for the agent. */
#define JFRBPF_HOOK_SLOT_MASK 0x007fffffu
/* Bit 23 is the agent's own (a virtual thread's wait, reported over its channel): never in a trace record. */
#define JFRBPF_HOOK_TIMED (1u << 24)  /* jdk.MethodTiming: counted by the stubs */
#define JFRBPF_HOOK_TRACED (1u << 25) /* jdk.MethodTrace: one record per invocation over the threshold */
/* jdk.ObjectAllocationSample: the slot is the object's class id, the duration its weight in bytes
 * (jvmsupport/protocol/allocation_records.h). */
#define JFRBPF_HOOK_ALLOCATION (1u << 26)
/* jdk.JavaMonitorEnter, or with JFRBPF_HOOK_LOCK_WAIT jdk.JavaMonitorWait, or with JFRBPF_HOOK_LOCK_PARK
 * jdk.ThreadPark: the slot is the class id of the monitor (or the park's blocker), the entry time when the
 * thread began to wait, the duration how long it waited, the detail a wait's timeout in ms or a park's in ns
 * (with JFRBPF_HOOK_LOCK_UNTIL: its deadline in ms since the epoch), the address the object's
 * (jvmsupport/protocol/lock_records.h). */
#define JFRBPF_HOOK_LOCK (1u << 27)
#define JFRBPF_HOOK_LOCK_WAIT (1u << 28)
#define JFRBPF_HOOK_LOCK_TIMED_OUT (1u << 29)
#define JFRBPF_HOOK_LOCK_PARK (1u << 30)
#define JFRBPF_HOOK_LOCK_UNTIL (1u << 31)

/* One per-CPU counter each. */
enum jfrbpf_timer_counter {
  JFRBPF_TIMER_TRACES = 0,             /* trace records sent */
  JFRBPF_TIMER_TRACES_LOST_RINGBUF_FULL,
  JFRBPF_TIMER_TRACES_LOST_BUSY,       /* this CPU's trace scratch was in use (a preempted trace) */
  JFRBPF_TIMER_COUNTER_COUNT
};

/* A trace record in the traces ring buffer: this head, then a struct jfrbpf_sample_record whose time_ns is
 * the method's entry as the JVM's clock gave it, with user frames only (kernel_depth 0); the top frame is
 * the trace stub. */
struct jfrbpf_trace_head {
  __u64 duration_ns;
  __u32 hook_index; /* slot and flags, as the bytecode passed it */
  __u32 reserved;
  __u64 detail;     /* the stub's fourth argument: what the hook's flags say (0 for a traced call) */
  __u64 address;    /* its fifth: an object's address (0 for a traced call) */
};

#define JFRBPF_TRACE_HEAD_SIZE 32

#endif
