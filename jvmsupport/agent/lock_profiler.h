#pragma once
// Lock profiling inside the JVM (record --lock). JVMTI's monitor events bracket each wait: a contended entry
// of a monitor (MonitorContendedEnter .. MonitorContendedEntered: the time HotSpot counts as the thread's
// blocked time) and Object.wait (MonitorWait .. MonitorWaited: its waited time). JVMTI has no event for
// parks (LockSupport.park, under every java.util.concurrent lock), so the agent binds Unsafe.park to a
// function of its own that times the JVM's original around the call. The agent times each wait on the
// waiting thread and, at the end of one at or over the threshold, calls the trace stub (hook_stubs.h), whose
// uprobe walks the thread's stack in BPF as for a traced call: the thread is still at the wait's site.
#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <span>

#include "jvmsupport/agent/vm_structs.h"

namespace jfrbpf::agent {

class Agent;

class LockProfiler {
 public:
  // Agent thread, once the VMStructs are read: where a native method's function is.
  void init(const VmStructs& vm);
  // Agent thread: session `session`'s StartLocks command; answers it with a LockStatus record. One session
  // profiles locks at a time: another's request is refused, saying so.
  void start(Agent& agent, JNIEnv* jni, uint32_t session, std::span<const uint8_t> command);
  // Agent thread, at the end of a session: no more events.
  void stop(Agent& agent);

  // The JVMTI events, on the waiting thread.
  void onContendedEnter(Agent& agent);
  void onContendedEntered(Agent& agent, JNIEnv* jni, jobject object);
  void onWait(Agent& agent, jlong timeoutMs);
  void onWaited(Agent& agent, JNIEnv* jni, jobject object, jboolean timedOut);
  // Unsafe.park(isAbsolute, time), on the parking thread: the JVM's own park, timed.
  void park(JNIEnv* jni, jobject unsafe, jboolean isAbsolute, jlong time);

 private:
  using ParkFunction = void(JNICALL*)(JNIEnv*, jobject, jboolean, jlong);

  void setEvents(Agent& agent, jvmtiEventMode mode);
  void sendStatus(Agent& agent, uint32_t session, bool started, const char* message);
  // Binds Unsafe.park to the agent's function, once per JVM; nullptr, or why it cannot.
  const char* bindPark(Agent& agent, JNIEnv* jni);

  std::atomic<bool> active_{false};
  std::atomic<uint32_t> session_{0};  // the holder's: a wait begun in an earlier session is not reported in this one
  std::atomic<uint64_t> thresholdNs_{0};
  bool capabilityAdded_ = false;
  uint64_t methodSize_ = 0;  // sizeof(Method): a native method's function pointer follows it
  Agent* agent_ = nullptr;   // for the park binding, which JNI calls without one
  ParkFunction originalPark_ = nullptr;
  jfieldID parkBlocker_ = nullptr;  // java.lang.Thread.parkBlocker
};

}  // namespace jfrbpf::agent
