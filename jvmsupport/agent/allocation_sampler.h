#pragma once
// Allocation sampling inside the JVM (record --alloc). HotSpot's own heap sampler picks an object about every
// `interval` bytes a thread allocates and reports it through JVMTI's SampledObjectAlloc (the sampler JFR's
// jdk.ObjectAllocationSample uses). Each sampled object becomes a call to the trace stub (hook_stubs.h),
// whose uprobe walks the allocating thread's stack in BPF, as for a traced call.
//
// A sample's weight is what its thread allocated since its previous sample, by HotSpot's own per-thread
// counter (Thread::_allocated_bytes plus what the thread's current TLAB holds: what ThreadMXBean's
// getThreadAllocatedBytes reports), so a thread's weights add up to what it allocated whatever the interval
// or its randomness; the first sample of a thread counts from the thread's counter when sampling began.
// Where VMStructs lacks the counter, a sample weighs the interval, as in JFR. With a rate, the interval
// follows the JVM's allocation rate every 100 ms; either way at most about kMaxSamplesPerSecond are taken.
#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <span>

#include "jvmsupport/agent/vm_structs.h"

namespace jfrbpf::agent {

class Agent;

class AllocationSampler {
 public:
  // The most samples per second, whatever the interval asked: HotSpot's sampler has no bound of its own.
  static constexpr uint32_t kMaxSamplesPerSecond = 10'000;

  // Agent thread, once the VMStructs are read: where the allocation counters are.
  void init(const VmStructs& vm);
  // Agent thread: session `session`'s StartAllocations command; answers it with an AllocationStatus record.
  // One session samples at a time: another's request is refused, saying so.
  void start(Agent& agent, JNIEnv* jni, uint32_t session, std::span<const uint8_t> command);
  // Agent thread, at the end of the holder's session: no more samples.
  void stop(Agent& agent);
  // SampledObjectAlloc, on the allocating thread.
  void onSampledObject(Agent& agent, JNIEnv* jni, jclass klass, jlong size);

 private:
  struct Baseline {
    uintptr_t javaThread;
    uint64_t allocated;
  };
  static constexpr size_t kBaselines = 4096;  // threads alive when sampling began; a power of two

  uint64_t allocatedBytes(uintptr_t javaThread) const;
  uint64_t baselineOf(uintptr_t javaThread) const;
  void recordBaselines(Agent& agent, JNIEnv* jni);
  void followRate(Agent& agent, uint64_t now);
  void sendStatus(Agent& agent, uint32_t session, bool started, const char* message);

  // Layout (init): JNIEnv* -> JavaThread*, and the counters in it.
  bool counters_ = false;
  uint64_t allocatedOffset_ = 0;   // Thread::_allocated_bytes
  uint64_t tlabStartOffset_ = 0;   // Thread::_tlab + ThreadLocalAllocBuffer::_start
  uint64_t tlabTopOffset_ = 0;     // ... + _top
  uintptr_t envOffset_ = 0;        // JavaThread::_jni_environment, measured on the agent thread

  std::atomic<bool> active_{false};
  std::atomic<uint32_t> session_{0};  // the holder's session: sampling periods, told apart per thread
  uint32_t samplesPerSecond_ = 0;     // 0: a fixed interval
  uint64_t askedInterval_ = 0;
  std::atomic<uint64_t> interval_{0};
  std::atomic<uint64_t> windowStart_{0};
  std::atomic<uint32_t> windowSamples_{0};
  bool capabilityAdded_ = false;
  Baseline baselines_[kBaselines] = {};
};

}  // namespace jfrbpf::agent
