#pragma once
// Method timing and tracing inside the JVM (JEP 520's jdk.MethodTiming / jdk.MethodTrace for JVMs that do
// not have it, or that were started without it): bytecode instrumentation of the methods the filters
// select, applied to the classes already loaded (RetransformClasses) and to every class loaded later
// (ClassFileLoadHook), and removed again when the session ends.
//
// Each selected method calls the hook class's enter(int) on entry and exit(int, int, long) on every exit,
// normal or exceptional (jvmsupport/classfile/rewriter.h); the ints are the method's hook index, whose slot
// comes from the range the loader assigned to this JVM, and the recording it was instrumented for. The hook
// class (hook_class.h) is Java code the JIT inlines: it times the invocation into a table shared with the
// loader (timing_table.h) and hands traced ones to the loader's uprobe. The agent reports each
// instrumented method (TimedMethod), what it could not instrument and why (TimingSkipped), and when the
// loaded classes are done (TimingStatus, with where the timing table is).
//
// With --off-cpu the loader also asks for the waits of virtual threads (protocol/virtual_thread_records.h):
// VirtualThread.yieldContinuation then gets the same hooks with kHookVirtualWait and no slot.
//
// Restoring retransforms every class it changed while the ClassFileLoadHook returns nothing new, which
// gives the JVM back the class bytes it had before. Classes of the agent and the methods the hook class
// itself calls (hooksUse) are never instrumented, so timing cannot recurse.
#include <jvmti.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>

#include "jvmsupport/agent/hook_class.h"
#include "jvmsupport/agent/previous_versions.h"
#include "jvmsupport/agent/timing_table.h"
#include "jvmsupport/filter/filter.h"
#include "jvmsupport/protocol/timing_records.h"

namespace jfrbpf::agent {

class Agent;

class MethodTimer {
 public:
  MethodTimer() = default;
  MethodTimer(const MethodTimer&) = delete;
  MethodTimer& operator=(const MethodTimer&) = delete;

  // Agent thread: session `session`'s StartTiming command. Instruments the loaded classes and sends it
  // TimingStatus (kApplied, or kUnavailable with the reason). One session times methods at a time: a second
  // command, from it or another session, is refused the same way.
  void start(Agent& agent, JNIEnv* jni, uint32_t session, std::span<const uint8_t> command);
  // Agent thread, at the end of the holder's session (not at VM death): removes all instrumentation. With
  // `othersRecord`, the classes restored are reported anew, for the sessions that go on. No-op if idle.
  void stop(Agent& agent, JNIEnv* jni, bool othersRecord);

  // ClassFileLoadHook (any thread; also on the agent thread inside RetransformClasses).
  void onClassFileLoad(Agent& agent, jclass beingRedefined, const char* name, jint length, const unsigned char* data,
                       jint* newLength, unsigned char** newData);
  // ClassPrepare (any thread): a class instrumented as it loaded gets read access to the hook class.
  void onClassPrepare(Agent& agent, JNIEnv* jni, jclass klass);

  // Agent thread: the method versions retransformations replaced, for replays.
  const PreviousVersions& previousVersions() const { return previousVersions_; }

 private:
  enum State : int { kIdle, kActive, kRestoring };

  // Counts ClassFileLoadHook calls in progress, so stop() can wait for the last before forgetting filters.
  class InFlight {
   public:
    explicit InFlight(std::atomic<int>& count) : count_(count) { count_.fetch_add(1, std::memory_order_acq_rel); }
    ~InFlight() { count_.fetch_sub(1, std::memory_order_acq_rel); }

   private:
    std::atomic<int>& count_;
  };

  bool addCapabilities(jvmtiEnv* jvmti, const char*& error);
  void sendStatus(Agent& agent, uint32_t session, protocol::TimingState state, const char* message);
  void skipped(Agent& agent, std::string_view className, std::string_view methodName, std::string_view descriptor,
               std::string_view reason);
  // Whether a loaded class may have a method the filters select, judged from JVMTI alone.
  bool isCandidate(Agent& agent, jclass klass, std::string_view className);
  bool constantPoolMentions(jvmtiEnv* jvmti, jclass klass, const filter::Filter& filter);
  void instrumentLoadedClasses(Agent& agent, JNIEnv* jni);
  // Retransforms `classes` in one call, or one by one when the batch fails (one refused class must not
  // keep the others unchanged). When instrumenting, refusals are reported as skipped; with `reportClasses`,
  // changed classes are reported anew (new Method* and code) to every session.
  void retransform(Agent& agent, jclass* classes, jint count, bool instrumenting, bool reportClasses);
  bool wasInstrumented(std::string_view className);
  // Whether a class may have a method to instrument, by its name alone.
  bool mayInstrument(std::string_view className) const;

  std::atomic<int> state_{kIdle};
  std::atomic<int> inFlight_{0};
  bool capabilitiesAdded_ = false;
  bool canReadConstantPool_ = false;
  HookClass hookClass_;
  TimingTable table_;
  PreviousVersions previousVersions_;

  // Set before state_ becomes kActive, read-only while active, cleared once no hook call is in flight.
  filter::Filter timing_;
  filter::Filter trace_;
  bool annotationTargets_ = false;
  bool virtualThreadWaits_ = false;  // VirtualThread.yieldContinuation is hooked too
  std::atomic<uint32_t> nextSlot_{0};
  uint32_t slotLimit_ = 0;
  int32_t recording_ = 0;  // the hook class's number for this session's instrumentation
  uint32_t session_ = 0;   // the agent session holding it: its records go there alone

  std::atomic<uint32_t> classesInstrumented_{0};
  std::atomic<uint32_t> methodsInstrumented_{0};
  std::atomic<uint32_t> methodsSkipped_{0};
  std::atomic<uint32_t> skipReports_{0};
  uint32_t classesFailed_ = 0;

  pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
  std::unordered_set<std::string> instrumentedClasses_;  // internal names, for restoring (under lock_)
  std::unordered_set<std::string> awaitingPrepare_;      // instrumented as they loaded (under lock_)
};

}  // namespace jfrbpf::agent
