#include "jvmsupport/agent/lock_profiler.h"

#include <cstdlib>

#include "jvmsupport/agent/agent.h"
#include "jvmsupport/agent/class_reporter.h"
#include "jvmsupport/agent/clock.h"
#include "jvmsupport/agent/hook_stubs.h"
#include "jvmsupport/agent/loaded_symbols.h"
#include "jvmsupport/agent/safe_memory.h"
#include "jvmsupport/protocol/lock_records.h"
#include "jvmsupport/protocol/timing_records.h"

namespace jfrbpf::agent {
namespace {

constexpr jvmtiEvent kEvents[] = {JVMTI_EVENT_MONITOR_CONTENDED_ENTER, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
                                  JVMTI_EVENT_MONITOR_WAIT, JVMTI_EVENT_MONITOR_WAITED};

// The thread's open waits. An entry and a wait are kept apart: a woken Object.wait enters its monitor again,
// which may be contended. In the JVMTI thread-local storage of the Java thread, not the OS thread's: since
// JDK 24 a virtual thread that blocks on a monitor or waits in Object.wait unmounts, and it may end its wait
// on another carrier, after other virtual threads began theirs on the first one. Allocated as a wait begins
// and freed as the thread's last open wait ends.
struct ThreadWaits {
  uint32_t enterSession;
  uint32_t waitSession;
  uint64_t enterStart;
  uint64_t waitStart;
  int64_t waitTimeoutMs;
};

ThreadWaits* threadWaits(jvmtiEnv* jvmti, bool create) {
  void* stored = nullptr;
  if (jvmti->GetThreadLocalStorage(nullptr, &stored) != JVMTI_ERROR_NONE) return nullptr;
  auto* waits = static_cast<ThreadWaits*>(stored);
  if (waits != nullptr || !create) return waits;
  waits = static_cast<ThreadWaits*>(calloc(1, sizeof(ThreadWaits)));
  if (waits != nullptr && jvmti->SetThreadLocalStorage(nullptr, waits) != JVMTI_ERROR_NONE) {
    free(waits);
    waits = nullptr;
  }
  return waits;
}

// Frees the thread's record once none of its waits is open.
void releaseIfIdle(jvmtiEnv* jvmti, ThreadWaits* waits) {
  if (waits->enterStart != 0 || waits->waitStart != 0) return;
  if (jvmti->SetThreadLocalStorage(nullptr, nullptr) == JVMTI_ERROR_NONE) free(waits);
}

// The object's address, as JFR's `address` field gives the monitor's: a local reference is the address of a
// slot that holds the object's (uncompressed) address.
uint64_t objectAddress(jobject object) {
  uintptr_t address = 0;
  if (object == nullptr || !safeRead(reinterpret_cast<uintptr_t>(object), address)) return 0;
  return address;
}

void JNICALL timedPark(JNIEnv* jni, jobject unsafe, jboolean isAbsolute, jlong time) {
  Agent::instance()->lockProfiler().park(jni, unsafe, isAbsolute, time);
}

uint32_t classSlot(Agent& agent, JNIEnv* jni, jobject object) {
  if (object == nullptr) return 0;
  jclass klass = jni->GetObjectClass(object);
  if (klass == nullptr) return 0;
  const uint64_t classId = allocatedClassId(agent, klass);
  jni->DeleteLocalRef(klass);
  // A class id beyond what a hook index holds is sent as 0: the loader names it "unknown".
  return classId <= protocol::kHookSlotMask ? static_cast<uint32_t>(classId) : 0;
}

}  // namespace

void LockProfiler::init(const VmStructs& vm) {
  if (!vm.available() || !vm.typeSize("Method", methodSize_)) methodSize_ = 0;
}

const char* LockProfiler::bindPark(Agent& agent, JNIEnv* jni) {
  if (originalPark_ != nullptr) return nullptr;
  if (methodSize_ == 0) return "the JVM's VMStructs do not give the size of a Method";
  jclass unsafe = jni->FindClass("jdk/internal/misc/Unsafe");
  if (unsafe == nullptr) {
    jni->ExceptionClear();
    unsafe = jni->FindClass("sun/misc/Unsafe");  // JDK 8
  }
  jclass thread = jni->FindClass("java/lang/Thread");
  jmethodID park = unsafe != nullptr ? jni->GetMethodID(unsafe, "park", "(ZJ)V") : nullptr;
  jfieldID blocker = thread != nullptr ? jni->GetFieldID(thread, "parkBlocker", "Ljava/lang/Object;") : nullptr;
  jni->ExceptionClear();
  // A jmethodID points at its Method*; a native method's function follows the Method.
  uintptr_t method = 0, function = 0;
  LoadedSymbols library;
  const char* why = nullptr;
  if (park == nullptr || blocker == nullptr) {
    why = "Unsafe.park(boolean, long) or Thread.parkBlocker not found";
  } else if (!safeRead(reinterpret_cast<uintptr_t>(park), method) || !safeRead(method + methodSize_, function) ||
             !library.init(reinterpret_cast<const void*>(function)) || library.find("JNI_CreateJavaVM") == nullptr) {
    why = "Unsafe.park is not bound to the JVM's own function";
  } else {
    originalPark_ = reinterpret_cast<ParkFunction>(function);
    parkBlocker_ = blocker;
    agent_ = &agent;
    const JNINativeMethod binding{const_cast<char*>("park"), const_cast<char*>("(ZJ)V"),
                                  reinterpret_cast<void*>(&timedPark)};
    if (jni->RegisterNatives(unsafe, &binding, 1) != JNI_OK) {
      jni->ExceptionClear();
      originalPark_ = nullptr;
      why = "the JVM refused to bind Unsafe.park";
    }
  }
  if (unsafe != nullptr) jni->DeleteLocalRef(unsafe);
  if (thread != nullptr) jni->DeleteLocalRef(thread);
  return why;
}

void LockProfiler::park(JNIEnv* jni, jobject unsafe, jboolean isAbsolute, jlong time) {
  if (!active_.load(std::memory_order_acquire)) return originalPark_(jni, unsafe, isAbsolute, time);
  // The blocker LockSupport set before parking: what the thread waits for.
  jthread self = nullptr;
  jobject blocker = nullptr;
  if (agent_->jvmti()->GetCurrentThread(&self) == JVMTI_ERROR_NONE && self != nullptr) {
    blocker = jni->GetObjectField(self, parkBlocker_);
  }
  const uint32_t session = session_.load(std::memory_order_relaxed);
  const uint64_t start = monotonicNs();
  originalPark_(jni, unsafe, isAbsolute, time);
  const uint64_t now = monotonicNs();
  const uint64_t duration = now > start ? now - start : 0;
  if (duration >= thresholdNs_.load(std::memory_order_relaxed) && session == session_.load(std::memory_order_relaxed) &&
      !jni->ExceptionCheck()) {
    const uint32_t flags = protocol::kHookLock | protocol::kHookLockPark |
                           (isAbsolute && time != 0 ? protocol::kHookLockUntil : 0);
    jfrbpf_method_traced(flags | classSlot(*agent_, jni, blocker), start, duration, static_cast<uint64_t>(time),
                         objectAddress(blocker), session);
  }
  if (blocker != nullptr) jni->DeleteLocalRef(blocker);
  if (self != nullptr) jni->DeleteLocalRef(self);
}

void LockProfiler::sendStatus(Agent& agent, uint32_t session, bool started, const char* message) {
  protocol::LockStatus status;
  status.time = monotonicNs();
  status.parks = originalPark_ != nullptr ? 1 : 0;
  status.state = static_cast<uint32_t>(started ? protocol::LockState::kStarted : protocol::LockState::kUnavailable);
  status.message = message != nullptr ? message : "";
  emitRecordTo(agent, session, protocol::RecordType::kLockStatus, status);
}

void LockProfiler::setEvents(Agent& agent, jvmtiEventMode mode) {
  for (jvmtiEvent event : kEvents) agent.jvmti()->SetEventNotificationMode(mode, event, nullptr);
}

void LockProfiler::start(Agent& agent, JNIEnv* jni, uint32_t session, std::span<const uint8_t> command) {
  protocol::StartLocks request;
  if (!protocol::decode(command, request)) return sendStatus(agent, session, false, "malformed StartLocks command");
  char heldElsewhere[kHeldMessageSize];
  const uint32_t holder = agent.claim(Feature::kLocks, session);
  if (holder != session) return sendStatus(agent, session, false, describeHolder(heldElsewhere, "profiles its locks", holder));
  if (active_.load(std::memory_order_acquire)) return sendStatus(agent, session, false, "locks are profiled already");
  // Whatever fails from here leaves the feature free for another session.
  auto refuse = [&](const char* message) {
    agent.release(Feature::kLocks);
    sendStatus(agent, session, false, message);
  };
  if (!capabilityAdded_) {
    jvmtiCapabilities wanted{};
    wanted.can_generate_monitor_events = 1;
    if (agent.jvmti()->AddCapabilities(&wanted) != JVMTI_ERROR_NONE) {
      return refuse("this JVM cannot report monitor waits (JVMTI can_generate_monitor_events)");
    }
    capabilityAdded_ = true;
  }
  const char* parksMissing = bindPark(agent, jni);
  thresholdNs_.store(request.thresholdNs, std::memory_order_relaxed);
  session_.store(session, std::memory_order_relaxed);
  active_.store(true, std::memory_order_release);
  for (jvmtiEvent event : kEvents) {
    if (agent.jvmti()->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr) != JVMTI_ERROR_NONE) {
      active_.store(false, std::memory_order_release);
      setEvents(agent, JVMTI_DISABLE);
      return refuse("the JVM refused its monitor events");
    }
  }
  sendStatus(agent, session, true, parksMissing);
}

void LockProfiler::stop(Agent& agent) {
  if (!active_.exchange(false, std::memory_order_acq_rel)) return;
  setEvents(agent, JVMTI_DISABLE);
}

void LockProfiler::onContendedEnter(Agent& agent) {
  if (!active_.load(std::memory_order_acquire)) return;
  ThreadWaits* waits = threadWaits(agent.jvmti(), /*create=*/true);
  if (waits == nullptr) return;
  waits->enterSession = session_.load(std::memory_order_relaxed);
  waits->enterStart = monotonicNs();  // last: the callback's own cost stays out of the wait
}

void LockProfiler::onContendedEntered(Agent& agent, JNIEnv* jni, jobject object) {
  const uint64_t now = monotonicNs();  // first, for the same reason
  ThreadWaits* waits = threadWaits(agent.jvmti(), /*create=*/false);
  if (waits == nullptr) return;
  const uint64_t start = waits->enterStart;
  const uint32_t session = waits->enterSession;
  waits->enterStart = 0;
  releaseIfIdle(agent.jvmti(), waits);
  if (!active_.load(std::memory_order_acquire) || start == 0) return;
  if (session != session_.load(std::memory_order_relaxed) || now < start) return;
  const uint64_t duration = now - start;
  if (duration < thresholdNs_.load(std::memory_order_relaxed)) return;
  jfrbpf_method_traced(protocol::kHookLock | classSlot(agent, jni, object), start, duration, 0, objectAddress(object),
                       session);
}

void LockProfiler::onWait(Agent& agent, jlong timeoutMs) {
  if (!active_.load(std::memory_order_acquire)) return;
  ThreadWaits* waits = threadWaits(agent.jvmti(), /*create=*/true);
  if (waits == nullptr) return;
  waits->waitSession = session_.load(std::memory_order_relaxed);
  waits->waitTimeoutMs = timeoutMs;
  waits->waitStart = monotonicNs();
}

void LockProfiler::onWaited(Agent& agent, JNIEnv* jni, jobject object, jboolean timedOut) {
  const uint64_t now = monotonicNs();
  ThreadWaits* waits = threadWaits(agent.jvmti(), /*create=*/false);
  if (waits == nullptr) return;
  const uint64_t start = waits->waitStart;
  const uint32_t session = waits->waitSession;
  const int64_t timeoutMs = waits->waitTimeoutMs;
  waits->waitStart = 0;
  releaseIfIdle(agent.jvmti(), waits);
  if (!active_.load(std::memory_order_acquire) || start == 0) return;
  if (session != session_.load(std::memory_order_relaxed) || now < start) return;
  const uint64_t duration = now - start;
  if (duration < thresholdNs_.load(std::memory_order_relaxed)) return;
  const uint32_t flags = protocol::kHookLock | protocol::kHookLockWait | (timedOut ? protocol::kHookLockTimedOut : 0);
  jfrbpf_method_traced(flags | classSlot(agent, jni, object), start, duration, static_cast<uint64_t>(timeoutMs),
                       objectAddress(object), session);
}

}  // namespace jfrbpf::agent
