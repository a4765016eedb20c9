/* What the programs of the sampler object share: the target processes and their JVM layouts, the ring the
 * records go out through, and the per-thread loss ledger (every way a sample can be lost is charged to its
 * thread, so that samples written and lost add up to the thread's sampling periods). */
#ifndef JFRBPF_SAMPLER_MAPS_BPF_H
#define JFRBPF_SAMPLER_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "walker_state.bpf.h"

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

/* The JavaThread of the walk's thread: as the loader published it once the thread's agent told of it, else
 * (a thread too young for that, such as a carrier the scheduler has just started) r15 where the walk began in
 * Java code, which HotSpot's x86_64 interpreter, compiled code and stubs reserve for the current JavaThread. */
static __always_inline __u64 walk_java_thread(const struct sampler_scratch* s) {
  __u32 tid = s->record.tid;
  __u64* published = bpf_map_lookup_elem(&java_threads, &tid);
  if (published && *published != 0) return *published;
  return s->walk.thread_register;
}

/* Keeps r15 of the walk's start registers when they are in Java code: call after begin_walk and the start
 * registers. */
static __always_inline void keep_thread_register(struct sampler_scratch* s, __u64 r15) {
  const struct walk* w = &s->walk;
  bool in_java = w->pc >= s->jvm.code_low && w->pc < s->jvm.code_high;
  in_java = in_java || (w->pc >= s->jvm.interpreter_low && w->pc < s->jvm.interpreter_high);
  s->walk.thread_register = w->has_jvm && in_java ? r15 : 0;
}

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

#endif
