#pragma once
// The native end of the hook class's `waited` (MethodTimer.java): a picked wait of a virtual thread, called
// on that virtual thread as it returns from VirtualThread.yieldContinuation, remounted. JVMTI's own stack
// walk reads its frames (frozen ones included), and the wait
// goes to the loader as a VirtualThreadWait record (protocol/virtual_thread_records.h).
//
// A stack costs about 11 us (GetStackTrace of a 10-frame virtual thread, measured here), and thousands of
// virtual threads can wait at once: at most kMaxStacksPerSecond are taken, in bursts of up to a quarter of
// that. Once a rate over it has emptied the bucket, the hook class's picking interval doubles (quadruples,
// when twice over) every 25 ms until the picks fit, and halves back towards the interval asked for once
// they are well under; the weights stay true at any interval. Waits picked over the budget before
// the interval caught up are still sent, without a stack, so that the waits' time always adds up.
#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>

#include "jvmsupport/protocol/virtual_thread_records.h"

namespace jfrbpf::agent {

class Agent;

class VirtualThreadWaits {
 public:
  static constexpr uint32_t kMaxStacksPerSecond = 2'000;
  static constexpr jint kMaxFrames = 128;

  // Agent thread, as a recording asks for them with `intervalNs`: where the hook's own frames end
  // (VirtualThread's yieldContinuation). False if this JVM has no virtual threads.
  bool prepare(JNIEnv* jni, int64_t intervalNs);
  // The wait of virtual thread `threadId` (named `name`) that began at `startNs` (the agent's clock) and
  // lasted `durationNs`, standing for `weightNs`; `hooks` is the hook class.
  void waited(Agent& agent, JNIEnv* jni, jclass hooks, jlong threadId, jstring name, jlong startNs, jlong durationNs,
              jlong weightNs);

 private:
  // Counts a pick against the budget; false when it is over. At a window's end, adapts the interval.
  bool takeStackBudget(JNIEnv* jni, jclass hooks, uint64_t now);
  void setInterval(JNIEnv* jni, jclass hooks, int64_t intervalNs);
  // The current virtual thread's frames below the hook's into `bytes` (kMaxFrames of them at most); false
  // if JVMTI could not walk it.
  bool takeStack(Agent& agent, protocol::VirtualThreadWait& wait, uint8_t* bytes);

  std::atomic<jmethodID> yieldContinuation_{nullptr};
  // JVMTI's walk of a virtual thread ends at Continuation.enter; the thread's stack goes on in enterSpecial,
  // where the JDK's own stack traces and CPU samples end.
  std::atomic<jmethodID> continuationEnter_{nullptr};
  std::atomic<jmethodID> continuationEntry_{nullptr};
  std::atomic<int64_t> baseIntervalNs_{0};
  std::atomic<int64_t> intervalNs_{0};
  std::atomic<uint64_t> windowStartNs_{0};
  std::atomic<int64_t> picksInWindow_{0};
  std::atomic<int64_t> stacksLeft_{0};  // in the bucket: may go below 0 between refills
};

// MethodTimer.waited(long, String, long, long, long), bound with RegisterNatives.
void JNICALL virtualThreadWaited(JNIEnv* jni, jclass hooks, jlong threadId, jstring name, jlong startNs,
                                 jlong durationNs, jlong weightNs);

}  // namespace jfrbpf::agent
