#pragma once
// The agent inside the JVM: one per process, created at the first Agent_OnLoad/Agent_OnAttach and never
// destroyed (no destructor can race JVM exit). It owns the JVMTI environment, the bounded record ring and
// the agent thread.
//
// Sessions: each load (-agentpath at start, or each jcmd JVMTI.agent_load of the same library) hands a
// connected channel to the agent thread, which ends any previous session (Goodbye kReplaced), enables the
// events, replays the JVM's state and then streams records until the loader closes the channel. The loader
// may ask for method timing (StartTiming); the instrumentation lives as long as the session. Between
// sessions every event is disabled, no class is instrumented, the ring is freed and the agent thread
// sleeps in poll() without a timeout: nothing runs in the JVM.
#include <jvmti.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <optional>

#include "jvmsupport/agent/agent_options.h"
#include "jvmsupport/agent/allocation_sampler.h"
#include "jvmsupport/agent/lock_profiler.h"
#include "jvmsupport/agent/code_cache.h"
#include "jvmsupport/agent/command_reader.h"
#include "jvmsupport/agent/continuation_layout.h"
#include "jvmsupport/agent/jvm_layout.h"
#include "jvmsupport/agent/method_timer.h"
#include "jvmsupport/agent/record_buffer.h"
#include "jvmsupport/agent/record_ring.h"
#include "jvmsupport/agent/thread_identity.h"
#include "jvmsupport/agent/thread_reporter.h"
#include "jvmsupport/agent/virtual_thread_waits.h"
#include "jvmsupport/agent/vm_structs.h"
#include "jvmsupport/protocol/allocation_records.h"
#include "jvmsupport/protocol/lock_records.h"
#include "jvmsupport/protocol/virtual_thread_records.h"

namespace jfrbpf::agent {

class Agent {
 public:
  // The agent, or null before the first load (or if memory ran out then).
  static Agent* instance();
  // Entry points only: the agent, created at the first load.
  static Agent* getOrCreate();

  jint onLoad(JavaVM* vm, const char* options);
  jint onAttach(JavaVM* vm, const char* options);
  void onVmInit(JNIEnv* jni);
  void onVmDeath();

  // ---- for callbacks and reporters (any thread) ----
  jvmtiEnv* jvmti() const { return jvmti_; }
  const JvmLayout& layout() const { return layout_; }
  const CodeCacheLayout& codeCache() const { return codeCache_; }
  const ThreadIdentity& threadIdentity() const { return threadIdentity_; }
  MethodTimer& methodTimer() { return methodTimer_; }
  AllocationSampler& allocationSampler() { return allocationSampler_; }
  LockProfiler& lockProfiler() { return lockProfiler_; }
  VirtualThreadWaits& virtualThreadWaits() { return virtualThreadWaits_; }
  bool sessionActive() const { return sessionActive_.load(std::memory_order_acquire); }
  bool onAgentThread() const;
  // True while the agent thread replays existing state (its own GenerateEvents callbacks see this).
  bool replaying() const { return onAgentThread() && replaying_; }
  uint64_t nextClassId() { return nextClassId_.fetch_add(1, std::memory_order_relaxed); }
  // Class mirrors carry their class id as a JVMTI tag, so that the mirror's ObjectFree reports the class
  // unloaded (and a replay keeps the id). False where the JVM cannot tag objects.
  bool tagsClasses() const { return tagsClasses_; }
  // Counts a compiled method or code blob that GenerateEvents replayed (agent thread, during replay).
  void noteReplayed(protocol::RecordType type) {
    if (type == protocol::RecordType::kCompiledMethodLoad) ++replayedCompiled_;
    if (type == protocol::RecordType::kDynamicCode) ++replayedCode_;
  }
  // Queues a finished record. Other threads drop it when the ring is full (counted); the agent thread
  // sends to make room instead.
  void emit(const RecordBuffer& record);

 private:
  Agent() = default;

  // Null when ready, else why not.
  const char* initEnvironment(JavaVM* vm, jint phase);
  bool addCapabilitiesOnce();
  void setEventsEnabled(bool enabled);
  void handOver(int fd, const AgentOptions& options);
  // Null when started, else why not.
  const char* startAgentThread(JNIEnv* jni);
  void wake();

  // ---- agent thread (session.cpp) ----
  static void JNICALL agentThreadMain(jvmtiEnv* jvmti, JNIEnv* jni, void* arg);
  void runAgentThread(JNIEnv* jni);
  bool takePending(int& fd, AgentOptions& options);
  void runSession(JNIEnv* jni, int fd, const AgentOptions& options);
  void sendHello(const AgentOptions& options);
  void sendVmTables();
  void replay(JNIEnv* jni, protocol::ReplayReason reason);
  void periodicWork(JNIEnv* jni);
  void emitGoodbye(protocol::GoodbyeReason reason);
  // Reads the loader's commands; false once the channel is closed or broken.
  bool receiveCommands(JNIEnv* jni);
  // kReadIterator: reads the loader's BPF iterator `fd` to its end on this thread, then closes it.
  void readIterator(int fd);
  void flushNonBlocking();
  bool flushBlocking(int timeoutMs);
  // Agent thread: waits for the loader to take bytes; a loader that stalls for long ends the session.
  bool makeRoom();
  void markSessionClosed();
  // A JVM launched with the agent holds its VMInit here until the loader says kResume.
  void waitForLoader();
  void releaseLaunchHold();

  jvmtiEnv* jvmti_ = nullptr;
  uint32_t jvmtiVersion_ = 0;
  int jdkMajor_ = 0;
  bool capabilitiesAdded_ = false;
  bool tagsClasses_ = false;
  bool launched_ = false;
  VmStructs vmStructs_;
  JvmLayout layout_;
  std::optional<protocol::ContinuationLayout> continuationLayout_;  // JDK 21+, once checked
  CodeCacheLayout codeCache_;
  ThreadIdentity threadIdentity_;
  MethodTimer methodTimer_;
  AllocationSampler allocationSampler_;
  LockProfiler lockProfiler_;
  VirtualThreadWaits virtualThreadWaits_;
  RecordRing ring_;
  int wakeFd_ = -1;

  // Hand-over from the attaching thread to the agent thread.
  pthread_mutex_t handoffLock_ = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t sessionClosedCond_ = PTHREAD_COND_INITIALIZER;
  int pendingFd_ = -1;
  AgentOptions pendingOptions_;
  bool sessionOpen_ = false;  // under handoffLock_: a session's channel is still open
  bool launchHeld_ = false;   // under handoffLock_: VMInit waits for the loader's kResume (or a timeout)
  std::atomic<bool> agentThreadStarted_{false};
  std::atomic<bool> vmDying_{false};
  std::atomic<bool> sessionActive_{false};
  std::atomic<uint64_t> nextClassId_{1};
  std::atomic<pthread_t> agentThread_{};

  // Agent thread only.
  int channelFd_ = -1;
  bool channelBroken_ = false;
  bool replaying_ = false;
  uint32_t replayedCompiled_ = 0;
  uint32_t replayedCode_ = 0;
  uint32_t sessionNumber_ = 0;
  uint64_t lostReported_ = 0;
  bool resyncWanted_ = false;
  int resyncs_ = 0;
  uint64_t lastResyncNs_ = 0;
  uint64_t lastPeriodicNs_ = 0;
  ThreadNamePoller namePoller_;
  CommandReader commands_;
};

// Encodes `record` as one record of `type` and queues it.
template <typename Record>
void emitRecord(Agent& agent, protocol::RecordType type, const Record& record) {
  RecordBuffer buffer;
  buffer.begin(type);
  Writer w(buffer);
  protocol::encode(w, record);
  if (buffer.finish()) agent.emit(buffer);
}

}  // namespace jfrbpf::agent
