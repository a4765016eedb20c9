#pragma once
// Lock profiling inside the JVM (record --lock). JVMTI's monitor events bracket each wait: a contended entry
// of a monitor (MonitorContendedEnter .. MonitorContendedEntered: the time HotSpot counts as the thread's
// blocked time) and Object.wait (MonitorWait .. MonitorWaited: its waited time). The agent times them on the
// waiting thread and, at the end of a wait at or over the threshold, calls the trace stub (hook_stubs.h),
// whose uprobe walks the thread's stack in BPF as for a traced call: the thread is still at the wait's site.
#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <span>

namespace jfrbpf::agent {

class Agent;

class LockProfiler {
 public:
  // Agent thread: a StartLocks command; answers with a LockStatus record.
  void start(Agent& agent, std::span<const uint8_t> command);
  // Agent thread, at the end of a session: no more events.
  void stop(Agent& agent);

  // The JVMTI events, on the waiting thread.
  void onContendedEnter();
  void onContendedEntered(Agent& agent, JNIEnv* jni, jobject object);
  void onWait(jlong timeoutMs);
  void onWaited(Agent& agent, JNIEnv* jni, jobject object, jboolean timedOut);

 private:
  void setEvents(Agent& agent, jvmtiEventMode mode);
  void sendStatus(Agent& agent, bool started, const char* message);

  std::atomic<bool> active_{false};
  std::atomic<uint32_t> session_{0};  // a wait begun in an earlier session is not reported in this one
  std::atomic<uint64_t> thresholdNs_{0};
  bool capabilityAdded_ = false;
};

}  // namespace jfrbpf::agent
