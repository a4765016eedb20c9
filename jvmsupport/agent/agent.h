#pragma once
// The agent inside the JVM: one per process, created at the first Agent_OnLoad/Agent_OnAttach and never
// destroyed (no destructor can race JVM exit). It owns the JVMTI environment and the agent thread, and serves
// up to kMaxSessions loaders at once: a host recorder (`record --all`) and an engineer's `record -p` or
// launch may record the same JVM, each with its own lifetime.
//
// Sessions: each load (-agentpath at start, or each jcmd JVMTI.agent_load of the same library) hands a
// connected channel to the agent thread, which opens a session for it: hello, VM tables, a replay of the
// JVM's state for that session alone, then every record as it happens, to every open session, until that
// loader closes its channel. What changes the JVM (method timing with its instrumentation, allocation
// sampling, lock profiling) belongs to the first session that asks for it; another session asking is told
// who holds it, and a session's end undoes only what it holds. Between sessions every event is disabled, no
// class is instrumented and the agent thread sleeps in poll() without a timeout: nothing runs in the JVM.
#include <jvmti.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <optional>

#include "jvmsupport/agent/agent_options.h"
#include "jvmsupport/agent/allocation_sampler.h"
#include "jvmsupport/agent/lock_profiler.h"
#include "jvmsupport/agent/code_cache.h"
#include "jvmsupport/agent/continuation_layout.h"
#include "jvmsupport/agent/jvm_layout.h"
#include "jvmsupport/agent/loader_session.h"
#include "jvmsupport/agent/method_timer.h"
#include "jvmsupport/agent/record_buffer.h"
#include "jvmsupport/agent/thread_identity.h"
#include "jvmsupport/agent/virtual_thread_waits.h"
#include "jvmsupport/agent/vm_structs.h"
#include "jvmsupport/protocol/allocation_records.h"
#include "jvmsupport/protocol/lock_records.h"
#include "jvmsupport/protocol/virtual_thread_records.h"

namespace jfrbpf::agent {

// What changes the JVM on a session's behalf; each has one holder at a time.
enum class Feature : uint8_t { kMethodTiming, kAllocations, kLocks };
inline constexpr size_t kFeatureCount = 3;

// The answer to a session that asks for a feature another holds: "another jfrbpf recording of this JVM
// <doing what> (agent session N), ...", written into `out`.
inline constexpr size_t kHeldMessageSize = 192;
const char* describeHolder(char (&out)[kHeldMessageSize], const char* doingWhat, uint32_t holder);

class Agent {
 public:
  static constexpr size_t kMaxSessions = protocol::kMaxAgentSessions;

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
  // Whether any loader listens: callbacks do nothing otherwise.
  bool sessionActive() const { return openSessions_.load(std::memory_order_acquire) != 0; }
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
  // Queues a finished record for every open session; on the agent thread while it replays or polls names
  // for one session, for that session alone. Other threads drop it where a ring is full (counted); the agent
  // thread sends to make room instead.
  void emit(const RecordBuffer& record);
  // Queues a record for the session numbered `session` alone (nothing if it is closed).
  void emitTo(uint32_t session, const RecordBuffer& record);

  // ---- features (agent thread, while serving `session`'s command) ----
  // Makes `session` the feature's holder if none holds it, and returns the holder (0 if none could be).
  uint32_t claim(Feature feature, uint32_t session);
  void release(Feature feature) { holders_[static_cast<size_t>(feature)].store(0, std::memory_order_release); }
  // The session holding the feature, 0 if none (any thread: its events carry this number to the trace probe).
  uint32_t holder(Feature feature) const { return holders_[static_cast<size_t>(feature)].load(std::memory_order_acquire); }
  // How many sessions are open besides the one being served (restoring classes then reports them anew).
  size_t otherSessions(uint32_t session) const;

 private:
  Agent() = default;

  // Null when ready, else why not.
  const char* initEnvironment(JavaVM* vm, jint phase);
  bool addCapabilitiesOnce();
  void setEventsEnabled(bool enabled);
  // False (closing `fd`) when kMaxSessions are open or waiting already.
  bool handOver(int fd, const AgentOptions& options, bool launched);
  // Null when started, else why not.
  const char* startAgentThread(JNIEnv* jni);
  void wake();
  void push(LoaderSession& session, const RecordBuffer& record);

  // ---- agent thread (session.cpp) ----
  static void JNICALL agentThreadMain(jvmtiEnv* jvmti, JNIEnv* jni, void* arg);
  void runAgentThread(JNIEnv* jni);
  // Opens the sessions handed over since the last call.
  void openPending(JNIEnv* jni);
  void openSession(JNIEnv* jni, LoaderSession& session);
  // Serves the open sessions until one ends, a new one waits, or the period passes.
  void serveOpenSessions(JNIEnv* jni);
  void closeSession(JNIEnv* jni, LoaderSession& session, bool goodbye, protocol::GoodbyeReason reason);
  void sendHello(LoaderSession& session, uint32_t number);
  void sendVmTables();
  void replay(JNIEnv* jni, LoaderSession& session, protocol::ReplayReason reason);
  void periodicWork(JNIEnv* jni, LoaderSession& session);
  void emitGoodbye(LoaderSession& session, protocol::GoodbyeReason reason);
  // Reads the loader's commands; false once the channel is closed or broken.
  bool receiveCommands(JNIEnv* jni, LoaderSession& session);
  // kReadIterator: reads the loader's BPF iterator `fd` to its end on this thread, then closes it.
  void readIterator(int fd);
  void flushNonBlocking(LoaderSession& session);
  bool flushBlocking(LoaderSession& session, int timeoutMs);
  // Agent thread: waits for the loader to take bytes; a loader that stalls for long ends its session.
  bool makeRoom(LoaderSession& session);
  size_t countOpen() const;
  // A JVM launched with the agent holds its VMInit here until the launching loader says kResume.
  void waitForLoader();
  void releaseLaunchHold();
  void markSessionClosed(bool launched);

  jvmtiEnv* jvmti_ = nullptr;
  uint32_t jvmtiVersion_ = 0;
  int jdkMajor_ = 0;
  bool capabilitiesAdded_ = false;
  bool tagsClasses_ = false;
  VmStructs vmStructs_;
  JvmLayout layout_;
  std::optional<protocol::ContinuationLayout> continuationLayout_;  // JDK 21+, once checked
  CodeCacheLayout codeCache_;
  ThreadIdentity threadIdentity_;
  MethodTimer methodTimer_;
  AllocationSampler allocationSampler_;
  LockProfiler lockProfiler_;
  VirtualThreadWaits virtualThreadWaits_;
  LoaderSession sessions_[kMaxSessions];
  std::atomic<uint32_t> holders_[kFeatureCount] = {};
  int wakeFd_ = -1;

  // Hand-over from attaching threads to the agent thread.
  struct Pending {
    int fd = -1;
    AgentOptions options;
    bool launched = false;
  };
  pthread_mutex_t handoffLock_ = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t sessionClosedCond_ = PTHREAD_COND_INITIALIZER;
  Pending pending_[kMaxSessions];   // under handoffLock_
  size_t pendingCount_ = 0;         // under handoffLock_
  size_t sessionsOpen_ = 0;         // under handoffLock_: sessions taken from pending_ and not yet closed
  bool launchHeld_ = false;         // under handoffLock_: VMInit waits for the loader's kResume (or a timeout)
  std::atomic<bool> agentThreadStarted_{false};
  std::atomic<bool> vmDying_{false};
  std::atomic<uint32_t> openSessions_{0};  // producers' view: how many sessions take records
  std::atomic<uint32_t> nextSessionNumber_{1};
  std::atomic<uint64_t> nextClassId_{1};
  std::atomic<pthread_t> agentThread_{};

  // Agent thread only.
  bool replaying_ = false;
  LoaderSession* servedAlone_ = nullptr;  // the session the agent thread's records go to alone, if any
  uint32_t replayedCompiled_ = 0;
  uint32_t replayedCode_ = 0;
};

// Encodes `record` as one record of `type` into `buffer`; false if it does not fit.
template <typename Record>
bool encodeRecord(RecordBuffer& buffer, protocol::RecordType type, const Record& record) {
  buffer.begin(type);
  Writer w(buffer);
  protocol::encode(w, record);
  return buffer.finish();
}

// Encodes `record` as one record of `type` and queues it.
template <typename Record>
void emitRecord(Agent& agent, protocol::RecordType type, const Record& record) {
  RecordBuffer buffer;
  if (encodeRecord(buffer, type, record)) agent.emit(buffer);
}

// Encodes `record` as one record of `type` and queues it for session `session` alone.
template <typename Record>
void emitRecordTo(Agent& agent, uint32_t session, protocol::RecordType type, const Record& record) {
  RecordBuffer buffer;
  if (encodeRecord(buffer, type, record)) agent.emitTo(session, buffer);
}

}  // namespace jfrbpf::agent
