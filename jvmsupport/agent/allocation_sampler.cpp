#include "jvmsupport/agent/allocation_sampler.h"

#include <pthread.h>

#include <algorithm>
#include <cstdlib>

#include "jvmsupport/agent/agent.h"
#include "jvmsupport/agent/class_reporter.h"
#include "jvmsupport/agent/clock.h"
#include "jvmsupport/agent/hook_stubs.h"
#include "jvmsupport/agent/jvmti_memory.h"
#include "jvmsupport/agent/safe_memory.h"
#include "jvmsupport/protocol/allocation_records.h"
#include "jvmsupport/protocol/timing_records.h"

namespace jfrbpf::agent {
namespace {

constexpr uint64_t kMaxPlausibleOffset = 1u << 16;
constexpr uint64_t kMaxTlabBytes = 1ull << 40;
constexpr uint64_t kRateWindowNs = 100'000'000;  // short: a fast allocator meets the rate within a few windows
constexpr uint64_t kRateStartInterval = 512 * 1024;  // JFR's own starting point for its throttled sampler
constexpr uint64_t kMinInterval = 1024;
constexpr uint64_t kMaxInterval = 0x7fffffff;  // SetHeapSamplingInterval takes a jint
constexpr double kMaxStep = 16;

// The allocating thread's counter at its previous sample, per sampling period. In a pthread key (not
// thread_local: its __tls_get_addr would tie the agent to ld.so's version).
struct ThreadCounter {
  uint32_t session;
  uint64_t allocated;
};
pthread_key_t counterKey;
pthread_once_t counterKeyOnce = PTHREAD_ONCE_INIT;

void createCounterKey() { pthread_key_create(&counterKey, free); }

ThreadCounter* threadCounter() {
  pthread_once(&counterKeyOnce, createCounterKey);
  auto* counter = static_cast<ThreadCounter*>(pthread_getspecific(counterKey));
  if (counter != nullptr) return counter;
  counter = static_cast<ThreadCounter*>(calloc(1, sizeof(ThreadCounter)));
  if (counter != nullptr && pthread_setspecific(counterKey, counter) != 0) {
    free(counter);
    counter = nullptr;
  }
  return counter;
}

uint64_t clampInterval(double interval) {
  if (!(interval >= static_cast<double>(kMinInterval))) return kMinInterval;
  if (interval >= static_cast<double>(kMaxInterval)) return kMaxInterval;
  return static_cast<uint64_t>(interval);
}

}  // namespace

void AllocationSampler::init(const VmStructs& vm) {
  uint64_t tlab = 0, start = 0, top = 0;
  counters_ = vm.available() && vm.fieldOffset("Thread", "_allocated_bytes", allocatedOffset_) &&
              vm.fieldOffset("Thread", "_tlab", tlab) && vm.fieldOffset("ThreadLocalAllocBuffer", "_start", start) &&
              vm.fieldOffset("ThreadLocalAllocBuffer", "_top", top) && allocatedOffset_ < kMaxPlausibleOffset &&
              tlab < kMaxPlausibleOffset && start < 256 && top < 256;
  tlabStartOffset_ = tlab + start;
  tlabTopOffset_ = tlab + top;
}

uint64_t AllocationSampler::allocatedBytes(uintptr_t javaThread) const {
  // The calling thread's own JavaThread: alive, and its fields written by this thread alone.
  const auto allocated = *reinterpret_cast<const volatile int64_t*>(javaThread + allocatedOffset_);
  const auto start = *reinterpret_cast<const volatile uintptr_t*>(javaThread + tlabStartOffset_);
  const auto top = *reinterpret_cast<const volatile uintptr_t*>(javaThread + tlabTopOffset_);
  const uint64_t used = top >= start && top - start < kMaxTlabBytes ? top - start : 0;
  return static_cast<uint64_t>(allocated < 0 ? 0 : allocated) + used;
}

uint64_t AllocationSampler::baselineOf(uintptr_t javaThread) const {
  for (size_t i = 0, slot = (javaThread >> 4) & (kBaselines - 1); i < kBaselines; ++i, slot = (slot + 1) & (kBaselines - 1)) {
    if (baselines_[slot].javaThread == javaThread) return baselines_[slot].allocated;
    if (baselines_[slot].javaThread == 0) break;
  }
  return 0;  // a thread started since: its counter started at 0
}

void AllocationSampler::recordBaselines(Agent& agent, JNIEnv* jni) {
  for (Baseline& baseline : baselines_) baseline = {};
  jint count = 0;
  JvmtiArray<jthread> threads(agent.jvmti());
  if (agent.jvmti()->GetAllThreads(&count, threads.out()) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < count; ++i) {
    jthread thread = threads.get()[i];
    const uintptr_t javaThread = agent.threadIdentity().javaThreadPointer(jni, thread);
    jni->DeleteLocalRef(thread);
    int64_t allocated = 0;
    uintptr_t start = 0, top = 0;
    // Another thread's counters, read while it runs: safely, and as of about now.
    if (javaThread == 0 || !safeRead(javaThread + allocatedOffset_, allocated) ||
        !safeRead(javaThread + tlabStartOffset_, start) || !safeRead(javaThread + tlabTopOffset_, top)) {
      continue;
    }
    const uint64_t used = top >= start && top - start < kMaxTlabBytes ? top - start : 0;
    for (size_t k = 0, slot = (javaThread >> 4) & (kBaselines - 1); k < kBaselines; ++k, slot = (slot + 1) & (kBaselines - 1)) {
      if (baselines_[slot].javaThread != 0) continue;
      baselines_[slot] = {javaThread, static_cast<uint64_t>(allocated < 0 ? 0 : allocated) + used};
      break;
    }
  }
}

void AllocationSampler::sendStatus(Agent& agent, uint32_t session, bool started, const char* message) {
  protocol::AllocationStatus status;
  status.time = monotonicNs();
  status.state = static_cast<uint32_t>(started ? protocol::AllocationState::kStarted : protocol::AllocationState::kUnavailable);
  status.weightFromCounters = counters_ ? 1 : 0;
  status.intervalBytes = interval_.load(std::memory_order_relaxed);
  status.message = message != nullptr ? message : "";
  emitRecordTo(agent, session, protocol::RecordType::kAllocationStatus, status);
}

void AllocationSampler::start(Agent& agent, JNIEnv* jni, uint32_t session, std::span<const uint8_t> command) {
  protocol::StartAllocations request;
  if (!protocol::decode(command, request)) return sendStatus(agent, session, false, "malformed StartAllocations command");
  char heldElsewhere[kHeldMessageSize];
  const uint32_t holder = agent.claim(Feature::kAllocations, session);
  if (holder != session) {
    return sendStatus(agent, session, false, describeHolder(heldElsewhere, "samples its allocations", holder));
  }
  if (active_.load(std::memory_order_acquire)) return sendStatus(agent, session, false, "allocations are sampled already");
  // Whatever fails from here leaves the feature free for another session.
  auto refuse = [&](const char* message) {
    agent.release(Feature::kAllocations);
    sendStatus(agent, session, false, message);
  };
  jvmtiEnv* jvmti = agent.jvmti();
  if (!capabilityAdded_) {
    jvmtiCapabilities wanted{};
    wanted.can_generate_sampled_object_alloc_events = 1;
    if (jvmti->AddCapabilities(&wanted) != JVMTI_ERROR_NONE) {
      return refuse("this JVM cannot sample allocations (JVMTI can_generate_sampled_object_alloc_events)");
    }
    capabilityAdded_ = true;
  }
  if (counters_) {
    // JNIEnv lives inside the JavaThread: the agent thread's own pair gives the offset every thread shares.
    jthread self = nullptr;
    uintptr_t javaThread = 0;
    if (jvmti->GetCurrentThread(&self) == JVMTI_ERROR_NONE) {
      javaThread = agent.threadIdentity().javaThreadPointer(jni, self);
      jni->DeleteLocalRef(self);
    }
    const auto env = reinterpret_cast<uintptr_t>(jni);
    int64_t allocated = -1;
    counters_ = javaThread != 0 && env > javaThread && env - javaThread < kMaxPlausibleOffset &&
                safeRead(javaThread + allocatedOffset_, allocated) && allocated >= 0;
    envOffset_ = env - javaThread;
  }
  if (counters_) recordBaselines(agent, jni);
  samplesPerSecond_ = request.samplesPerSecond;
  askedInterval_ = request.intervalBytes;
  const uint64_t interval = clampInterval(static_cast<double>(askedInterval_ > 0 ? askedInterval_ : kRateStartInterval));
  interval_.store(interval, std::memory_order_relaxed);
  windowStart_.store(monotonicNs(), std::memory_order_relaxed);
  windowSamples_.store(0, std::memory_order_relaxed);
  if (jvmti->SetHeapSamplingInterval(static_cast<jint>(interval)) != JVMTI_ERROR_NONE) {
    return refuse("the JVM refused the heap sampling interval");
  }
  session_.store(session, std::memory_order_relaxed);
  active_.store(true, std::memory_order_release);
  if (jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr) != JVMTI_ERROR_NONE) {
    active_.store(false, std::memory_order_release);
    return refuse("the JVM refused the SampledObjectAlloc event");
  }
  sendStatus(agent, session, true, nullptr);
}

void AllocationSampler::stop(Agent& agent) {
  if (!active_.exchange(false, std::memory_order_acq_rel)) return;
  agent.jvmti()->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr);
}

void AllocationSampler::onSampledObject(Agent& agent, JNIEnv* jni, jclass klass, jlong size) {
  if (!active_.load(std::memory_order_acquire)) return;
  const uint64_t now = monotonicNs();
  uint64_t weight = interval_.load(std::memory_order_relaxed);
  ThreadCounter* counter = counters_ ? threadCounter() : nullptr;
  if (counter != nullptr) {
    const uintptr_t javaThread = reinterpret_cast<uintptr_t>(jni) - envOffset_;
    const uint64_t allocated = allocatedBytes(javaThread);
    const uint32_t session = session_.load(std::memory_order_relaxed);
    const uint64_t since = counter->session == session ? counter->allocated : baselineOf(javaThread);
    weight = allocated >= since ? allocated - since : static_cast<uint64_t>(size);
    *counter = {session, allocated};
  }
  const uint64_t classId = allocatedClassId(agent, klass);
  // A class id beyond what a hook index holds is sent as 0: the loader names it "unknown".
  jfrbpf_method_traced(protocol::kHookAllocation | (classId <= protocol::kHookSlotMask ? static_cast<uint32_t>(classId) : 0),
                       now, weight, 0, 0, session_.load(std::memory_order_relaxed));
  followRate(agent, now);
}

void AllocationSampler::followRate(Agent& agent, uint64_t now) {
  const uint32_t samples = windowSamples_.fetch_add(1, std::memory_order_relaxed) + 1;
  uint64_t start = windowStart_.load(std::memory_order_relaxed);
  // Another thread may have opened a window after this one read the clock: `now` is then before `start`.
  if (now < start || now - start < kRateWindowNs ||
      !windowStart_.compare_exchange_strong(start, now, std::memory_order_relaxed)) {
    return;
  }
  windowSamples_.store(0, std::memory_order_relaxed);
  const double perSecond = samples * 1e9 / static_cast<double>(now - start);
  const auto interval = static_cast<double>(interval_.load(std::memory_order_relaxed));
  // The interval that would have given the rate (samples are proportional to bytes over the interval), moved
  // at most kMaxStep either way in one window: after a quiet spell, a burst must not meet a tiny interval.
  const double target = samplesPerSecond_ > 0 ? samplesPerSecond_ : kMaxSamplesPerSecond;
  double wanted = std::clamp(interval * perSecond / target, interval / kMaxStep, interval * kMaxStep);
  if (samplesPerSecond_ == 0) wanted = std::max(static_cast<double>(askedInterval_), wanted);
  const uint64_t next = clampInterval(wanted);
  if (next == static_cast<uint64_t>(interval)) return;
  interval_.store(next, std::memory_order_relaxed);
  agent.jvmti()->SetHeapSamplingInterval(static_cast<jint>(next));
}

}  // namespace jfrbpf::agent
