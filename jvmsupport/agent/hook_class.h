#pragma once
// The Java side of method timing: the class java/jfrbpf/agent/MethodTimer.java, compiled into the agent,
// defined in the boot class loader (so classes of every loader that delegates to it, JDK classes included,
// can call it), its static state set through JNI for each recording, and its native `traced` bound to the
// trace stub. Defined once per JVM: a later session finds it again.
#include <jvmti.h>

#include <cstddef>
#include <cstdint>

#include "jvmsupport/protocol/timing_table.h"

namespace jfrbpf::agent {

// Internal name; never instrumented itself, and named after the agent so filters do not meet it by accident.
inline constexpr char kHookClassName[] = "jfrbpf/agent/MethodTimer";
inline constexpr char kHookEnterMethod[] = "enter";  // (I)J
inline constexpr char kHookExitMethod[] = "exit";    // (IIJ)V

// The class file, generated from MethodTimer.java at build time (cmake/EmbedBytes.cmake).
extern const unsigned char kMethodTimerClass[];
extern const size_t kMethodTimerClass_size;

class HookClass {
 public:
  // MethodTimer.waited(long threadId, String name, long startNs, long durationNs, long weightNs): a picked
  // wait of a virtual thread (virtual_thread_waits.h).
  using WaitedNative = void(JNICALL*)(JNIEnv*, jclass, jlong, jstring, jlong, jlong, jlong);

  // Agent thread: finds or defines the class, lets it use jdk.internal.misc.Unsafe and binds its natives
  // (`waited` to `waitedNative`). False with a one-line reason in `error` (on JDK 8, which it does not support).
  bool install(jvmtiEnv* jvmti, JNIEnv* jni, WaitedNative waitedNative, const char*& error);
  // Agent thread, before instrumenting for a recording: where invocations count, and from which duration on
  // a traced one goes to the trace stub (for agent session `session`). Returns the recording's number, new
  // in this JVM, which its
  // instrumentation passes to exit(): methods instrumented for another recording (sessions included)
  // count nowhere from then on. `virtualWaitIntervalNs` is how the waits of virtual threads are picked
  // (protocol/virtual_thread_records.h); negative: they are not reported.
  int32_t arm(JNIEnv* jni, protocol::TimingTableHeader* table, uint32_t session, uint64_t traceThresholdNs,
              int64_t virtualWaitIntervalNs);
  // Agent thread, when a recording's methods are restored: nothing counts any more.
  void disarm(JNIEnv* jni);
  // Lets every module that exists now, and `module` later, read the hook class's module (the boot loader's
  // unnamed module); instrumented classes in named modules could not link their hook calls otherwise.
  void grantReadsToAllModules(jvmtiEnv* jvmti, JNIEnv* jni);
  void grantReads(jvmtiEnv* jvmti, JNIEnv* jni, jclass instrumented);

 private:
  bool bind(jvmtiEnv* jvmti, JNIEnv* jni, jclass local, WaitedNative waitedNative, const char*& error);

  jclass klass_ = nullptr;    // global reference
  jobject module_ = nullptr;  // global reference
};

}  // namespace jfrbpf::agent
