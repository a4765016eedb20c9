/* The one ABI between the BPF sampler and userspace: map value layouts, ring-buffer records and counter
 * indexes. Included by sampler.bpf.c (with vmlinux.h types) and by the loader (with linux/types.h). */
#ifndef JFRBPF_SAMPLER_ABI_H
#define JFRBPF_SAMPLER_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define JFRBPF_MAX_KERNEL_FRAMES 127
#define JFRBPF_MAX_USER_FRAMES 512 /* a power of two: the walker masks indexes with it */

/* Why an overflow did or did not become a sample record; one per-CPU counter each. */
enum jfrbpf_counter {
  JFRBPF_COUNTER_OVERFLOWS = 0,        /* every run of the program: perf overflows that reached BPF */
  JFRBPF_COUNTER_NOT_TARGET,           /* the interrupted task is not a profiled process */
  JFRBPF_COUNTER_SAMPLED,              /* a record reached the ring buffer */
  JFRBPF_COUNTER_LOST_RINGBUF_FULL,    /* ring buffer had no room: lost, charged to the thread */
  JFRBPF_COUNTER_LOST_SCRATCH,         /* per-CPU scratch unavailable (cannot happen; counted anyway) */
  JFRBPF_COUNTER_KERNEL_STACK_FAILED,  /* sampled, but the kernel stack could not be read */
  JFRBPF_COUNTER_USER_STACK_FAILED,    /* sampled, but not even the first user frame was known */
  JFRBPF_COUNTER_USER_STACK_TRUNCATED, /* sampled, user stack deeper than the configured depth */
  JFRBPF_COUNTER_LOST_THREAD_MAP_FULL, /* samples lost that could not even be charged to their thread */
  JFRBPF_COUNTER_WALK_ROOT,            /* walks that ended at the thread's outermost frame */
  JFRBPF_COUNTER_WALK_READ_FAULT,      /* ... at memory that could not be read */
  JFRBPF_COUNTER_WALK_UNKNOWN_CODE,    /* ... at a pc in the code cache that is in no CodeBlob */
  JFRBPF_COUNTER_WALK_NO_UNWIND_INFO,  /* ... at native code with no table row and no usable frame pointer */
  JFRBPF_COUNTER_WALK_BAD_FRAME,       /* ... at a frame that failed a plausibility check */
  JFRBPF_COUNTER_WALK_ANCHOR_USED,     /* walks that jumped to a JavaFrameAnchor (not an end) */
  JFRBPF_COUNTER_CODE_FREES,           /* blocks watched JVMs freed in their code heaps (not a sample) */
  JFRBPF_COUNTER_AHEAD_OF_CPU_TIME,    /* the thread's samples already stood for more than its CPU time: none */
  JFRBPF_COUNTER_WALK_DISPLACED_FRAME, /* compiled frames found above where their size says (not an end) */
  JFRBPF_COUNTER_OFF_CPU_INTERVALS,    /* --off-cpu: target threads' off-CPU intervals that ended */
  JFRBPF_COUNTER_OFF_CPU_SAMPLED,      /* ... picked and written as a record */
  JFRBPF_COUNTER_OFF_CPU_LOST_RINGBUF_FULL, /* ... picked, but the ring buffer had no room: charged to the thread */
  JFRBPF_COUNTER_OFF_CPU_LOST_BUSY,    /* ... picked, but the CPU's off-CPU scratch was in use: charged alike */
  JFRBPF_COUNTER_OFF_CPU_MERGED,       /* ... picked while the thread's previous pick waited for its user stack */
  JFRBPF_COUNTER_OFF_CPU_NO_USER_STACK, /* ... written without user frames: the thread has no rseq area */
  JFRBPF_COUNTER_OFF_CPU_NO_STORAGE,   /* a target thread's switch not followed: no task storage for it then */
  JFRBPF_COUNTER_SAMPLE_PERIODS,       /* sampling periods of target threads' CPU time that came due: the samples
                                        * written (a record of N periods is N samples) and lost add up to it */
  JFRBPF_COUNTER_WALK_FROZEN_FRAMES,  /* walks that went on into a virtual thread's frozen frames (not an end) */
  JFRBPF_COUNTER_COUNT
};

/* How the user-stack walk ended (jfrbpf_sample_record.walk_end). */
enum jfrbpf_walk_end {
  JFRBPF_WALK_ROOT = 0,
  JFRBPF_WALK_DEPTH_LIMIT = 1,
  JFRBPF_WALK_READ_FAULT = 2,
  JFRBPF_WALK_UNKNOWN_CODE = 3,
  JFRBPF_WALK_NO_UNWIND_INFO = 4,
  JFRBPF_WALK_BAD_FRAME = 5,
  JFRBPF_WALK_NOT_TAKEN = 6, /* an off-CPU record whose user stack cannot be reached: the wait was still going
                              * on as the recording stopped, or the thread has no rseq area */
};

/* Why a thread was off CPU (jfrbpf_sample_record.off_cpu_state); 0 in CPU samples. */
enum jfrbpf_off_cpu_state {
  JFRBPF_OFF_CPU_SLEEPING = 1,        /* waiting for an event (TASK_INTERRUPTIBLE) */
  JFRBPF_OFF_CPU_UNINTERRUPTIBLE = 2, /* TASK_UNINTERRUPTIBLE: mostly I/O */
  JFRBPF_OFF_CPU_PREEMPTED = 3,       /* still runnable: waited for a CPU */
  JFRBPF_OFF_CPU_UNKNOWN = 4,         /* off CPU since before its process became a target */
};

/* A user frame with this pc stands for native frames the walker skipped: it could not unwind one and went on
 * at the thread's last Java frame (its JavaFrameAnchor). No code lives at address 1. */
#define JFRBPF_FRAMES_SKIPPED_PC 1ull

/* Record flags. */
#define JFRBPF_SAMPLE_USER_STACK_FAILED (1u << 0)
#define JFRBPF_SAMPLE_USER_STACK_TRUNCATED (1u << 1)
#define JFRBPF_SAMPLE_KERNEL_STACK_FAILED (1u << 2)
#define JFRBPF_SAMPLE_IN_KERNEL (1u << 3) /* the overflow interrupted kernel mode */
#define JFRBPF_SAMPLE_JVM (1u << 4)       /* the walker knew this process's JVM layout */
#define JFRBPF_SAMPLE_OFF_CPU (1u << 5)   /* an off-CPU interval, not a CPU sample */
/* A CPU sample, or an off-CPU interval, taken inside the thread's innermost continuation (JDK 24+: its
 * JavaThread::_cont_entry lies above the walk's first sp): current_thread_id says which Java thread was current
 * then. */
#define JFRBPF_SAMPLE_IN_CONTINUATION (1u << 6)

/* The thread's OpenTelemetry context (OTEP 4947) as a record carries it: where the process's threads keep one
 * (thread_context_locations), the thread's variable otel_thread_ctx_v1 points to its context record, whose
 * 28-byte header (trace id, span id, valid, trace flags, attributes' size) and attributes the record copies
 * as they are. The OTEP bounds a context record at 640 bytes. */
#define JFRBPF_CONTEXT_HEADER_SIZE 28
#define JFRBPF_CONTEXT_MAX_SIZE 640

enum jfrbpf_context_status {
  JFRBPF_CONTEXT_NONE = 0,     /* the process keeps none, or the thread was outside one (no record, or not valid) */
  JFRBPF_CONTEXT_READ = 1,     /* context_size bytes of its context record follow the stacks */
  JFRBPF_CONTEXT_NOT_READ,     /* not read: an off-CPU record sent from another process's context */
  JFRBPF_CONTEXT_TLS_FAULT,    /* the thread's variable (or its DTV entry) could not be read */
  JFRBPF_CONTEXT_RECORD_FAULT, /* the record it points to could not be read */
  JFRBPF_CONTEXT_ATTRS_FAULT,  /* the record's attributes could not be read */
  JFRBPF_CONTEXT_TOO_LARGE,    /* its attributes are over the bound: only its header follows the stacks */
  JFRBPF_CONTEXT_STATUS_COUNT
};

/* Value of thread_context_locations: where the threads of a process keep otel_thread_ctx_v1, found in
 * userspace (userspace/otel/thread_context_location.h). */
struct jfrbpf_thread_context_location {
  __s64 tp_offset;  /* static TLS: at the thread pointer + tp_offset */
  __u64 module_id;  /* nonzero: dynamic TLS, at the block the thread's DTV holds for this module, + offset */
  __u64 offset;
};

/* Ring-buffer record of a CPU sample or (JFRBPF_SAMPLE_OFF_CPU) an off-CPU interval: this header, then `data`: user_depth user frames (leaf first) as (pc, method) pairs,
 * then kernel_depth kernel pcs (leaf first). For an interpreted Java frame `method` is the Method* and `pc`
 * holds the bcp (so the bytecode index follows); for every other frame `method` is 0 and `pc` is the code
 * address. Kernel pcs follow the user frames directly, so a record is only as long as its stacks. */
struct jfrbpf_sample_record {
  __u64 time_ns; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC, the JFR tick clock */
  __u32 tgid;
  __u32 tid;
  __u32 cpu;
  __u16 kernel_depth;
  __u16 user_depth;
  __u32 flags;
  __u16 walk_end;      /* enum jfrbpf_walk_end */
  __u16 off_cpu_state; /* enum jfrbpf_off_cpu_state */
  __u64 top_bcp_register; /* r13 when interrupted: the live bcp if the top frame is interpreted */
  /* CPU samples: the thread's CPU time this sample stands for, a whole number of sampling periods (see
   * bpf/thread_cpu_time.bpf.h); off-CPU records: the thread's off-CPU time it stands for (bpf/off_cpu.bpf.h). */
  __u64 cpu_time_ns;
  union {
    __u64 periods;    /* CPU samples: how many sampling periods cpu_time_ns holds (>= 1): as many samples */
    __u64 off_cpu_ns; /* off-CPU records: the interval, from time_ns (when the thread left the CPU) */
  };
  __u64 run_delay_ns; /* off-CPU records: from its wake-up to running again */
  /* With JFRBPF_SAMPLE_IN_CONTINUATION: JavaThread::_monitor_owner_id, the Java id of the thread current on the
   * carrier, a mounted virtual thread's while one is mounted. Userspace tells whether it is the carrier's own
   * id (bpf/virtual_threads.bpf.h). */
  __s64 current_thread_id;
  /* With it, where the walker's layout has JavaThread::_vthread: the address of that thread's Thread object
   * then, for userspace to read its name (checked by its id: a collector may move it). 0 if unknown. */
  __u64 current_thread_object;
  __u16 context_status; /* enum jfrbpf_context_status: the thread's OpenTelemetry context then */
  __u16 context_size;   /* the bytes of its context record that follow the stacks (JFRBPF_CONTEXT_READ) */
  __u32 reserved;
  __u64 data[2 * JFRBPF_MAX_USER_FRAMES + JFRBPF_MAX_KERNEL_FRAMES + JFRBPF_CONTEXT_MAX_SIZE / 8];
};

#define JFRBPF_SAMPLE_HEADER_SIZE 88
/* The bytes of a record with these stack depths and context: the header, then two words per user frame and
 * one per kernel frame, then the context record padded to whole words. */
#define JFRBPF_SAMPLE_RECORD_SIZE(user_depth, kernel_depth, context_size)                  \
  (JFRBPF_SAMPLE_HEADER_SIZE + (2 * (__u64)(user_depth) + (__u64)(kernel_depth)) * 8 + \
   (((__u64)(context_size) + 7) & ~7ull))
#ifdef __cplusplus
static_assert(__builtin_offsetof(struct jfrbpf_sample_record, data) == JFRBPF_SAMPLE_HEADER_SIZE);
#else
_Static_assert(__builtin_offsetof(struct jfrbpf_sample_record, data) == JFRBPF_SAMPLE_HEADER_SIZE, "header size");
#endif

/* The sampler's own cost, when the loader asks for it (measure_sample_cost): how many target samples took
 * each JFRBPF_COST_BUCKET_NS of BPF time, from the program's entry to its last helper call. The last bucket
 * counts every slower sample. */
#define JFRBPF_COST_BUCKET_NS 25
#define JFRBPF_COST_BUCKETS 1024

/* Per-thread loss ledger, so that for every thread the sampling periods that came due = samples written +
 * samples lost. */
struct jfrbpf_thread_loss {
  __u32 tgid;
  __u32 reserved;
  __u64 lost_ringbuf_full; /* samples (sampling periods) */
  __u64 lost_cpu_ns; /* the CPU time those samples stood for */
  __u64 lost_off_cpu;    /* off-CPU records lost (ring buffer full, scratch busy) */
  __u64 lost_off_cpu_ns; /* the off-CPU time they stood for */
  __u64 unsampled;       /* --sampler cpu: sampling periods of its CPU time no clock caught before it ended */
  __u64 unsampled_cpu_ns; /* the CPU time they stood for */
};

/* Value of the thread CPU time seeds: a thread's CPU time (sum_exec_runtime) when its process's recording
 * began (bpf/thread_cpu_time.bpf.h). */
struct jfrbpf_thread_cpu_seed {
  __u32 tgid;
  __u32 reserved;
  __u64 cpu_time_ns;
  __u64 run_delay_ns; /* schedstat's second field then: where --off-cpu's run delays start */
};

/* Value of the targets map: which processes are profiled. */
struct jfrbpf_target {
  __u64 added_ns; /* CLOCK_MONOTONIC when it became a target: its threads started since are wholly recorded, and
                   * a process started since is another one under its reused pid */
};

#endif
