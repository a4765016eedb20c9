#include "jvmsupport/agent/agent.h"

#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "jvmsupport/agent/channel_socket.h"
#include "jvmsupport/agent/event_callbacks.h"

namespace jfrbpf::agent {

namespace {

constexpr jvmtiEvent kSessionEvents[] = {
    JVMTI_EVENT_CLASS_PREPARE,         JVMTI_EVENT_THREAD_START,           JVMTI_EVENT_THREAD_END,
    JVMTI_EVENT_COMPILED_METHOD_LOAD,  JVMTI_EVENT_COMPILED_METHOD_UNLOAD, JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
    JVMTI_EVENT_OBJECT_FREE,  // refused harmlessly where tagging is unavailable
};
// How long VMDeath waits for the agent thread to say goodbye; the JVM's exit must not hang on the loader.
constexpr int kVmDeathWaitMs = 1000;
// How long a launched JVM waits at VMInit for its loader; a loader that died must not stop the JVM for long.
constexpr int kLaunchHoldMs = 10000;
// initEnvironment's answer between the JVM's start and live phases (HotSpot's GetEnv says JNI_EDETACHED).
constexpr const char* kVmStillStarting = "the JVM is still starting";

void complain(const char* what, const char* detail) {
  std::fprintf(stderr, "jfrbpf agent: %s%s%s\n", what, detail != nullptr ? ": " : "", detail != nullptr ? detail : "");
}

// Set once, by the first entry point (the JVM serializes agent loading), before any callback exists.
// Deliberately never destroyed; placement new on malloc keeps the agent free of the C++ runtime.
std::atomic<Agent*> g_agent{nullptr};

}  // namespace

const char* describeHolder(char (&out)[kHeldMessageSize], const char* doingWhat, uint32_t holder) {
  std::snprintf(out, sizeof out,
                "another jfrbpf recording of this JVM %s (agent session %u), and only one can at a time",
                doingWhat, holder);
  return out;
}

Agent* Agent::instance() { return g_agent.load(std::memory_order_acquire); }

Agent* Agent::getOrCreate() {
  Agent* agent = instance();
  if (agent == nullptr) {
    void* memory = std::malloc(sizeof(Agent));
    if (memory == nullptr) return nullptr;
    agent = new (memory) Agent();
    g_agent.store(agent, std::memory_order_release);
  }
  return agent;
}

bool Agent::onAgentThread() const {
  pthread_t agentThread = agentThread_.load(std::memory_order_acquire);
  return agentThread != pthread_t{} && pthread_equal(pthread_self(), agentThread);
}

const char* Agent::initEnvironment(JavaVM* vm, jint phase) {
  if (jvmti_ != nullptr) return nullptr;
  jvmtiEnv* env = nullptr;
  jint got = vm->GetEnv(reinterpret_cast<void**>(&env), JVMTI_VERSION_1_2);
  if (got == JNI_EDETACHED) return kVmStillStarting;
  if (got != JNI_OK || env == nullptr) return "no JVMTI environment";
  jvmti_ = env;
  jint version = 0;
  if (jvmti_->GetVersionNumber(&version) == JVMTI_ERROR_NONE) jvmtiVersion_ = static_cast<uint32_t>(version);
  // JDK 9+ number JVMTI like the JDK (0x30110000 = 17); older ones are 1.x.
  int major = static_cast<int>((jvmtiVersion_ & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR);
  jdkMajor_ = major >= 9 ? major : 8;

  wakeFd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wakeFd_ < 0) return "no eventfd";
  if (!addCapabilitiesOnce()) return "the JVMTI capability can_generate_compiled_method_load_events is unavailable";

  jvmtiEventCallbacks callbacks;
  fillEventCallbacks(callbacks);
  if (jvmti_->SetEventCallbacks(&callbacks, sizeof callbacks) != JVMTI_ERROR_NONE) return "SetEventCallbacks failed";
  if (phase == JVMTI_PHASE_ONLOAD) jvmti_->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr);
  jvmti_->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, nullptr);

  if (vmStructs_.init(jvmti_)) {
    layout_.init(vmStructs_, jdkMajor_);
    codeCache_.init(vmStructs_);
    allocationSampler_.init(vmStructs_);
    lockProfiler_.init(vmStructs_);
  }
  return nullptr;
}

bool Agent::addCapabilitiesOnce() {
  if (capabilitiesAdded_) return true;
  jvmtiCapabilities potential{};
  if (jvmti_->GetPotentialCapabilities(&potential) != JVMTI_ERROR_NONE) return false;
  jvmtiCapabilities wanted{};
  wanted.can_generate_compiled_method_load_events = potential.can_generate_compiled_method_load_events;
  wanted.can_get_line_numbers = potential.can_get_line_numbers;
  wanted.can_get_bytecodes = potential.can_get_bytecodes;
  if (!wanted.can_generate_compiled_method_load_events) return false;
  if (jvmti_->AddCapabilities(&wanted) != JVMTI_ERROR_NONE) return false;
  capabilitiesAdded_ = true;
  // Optional: without them the loader keeps the methods of unloaded classes for the session's life.
  jvmtiCapabilities unloads{};
  unloads.can_tag_objects = 1;
  unloads.can_generate_object_free_events = 1;
  tagsClasses_ = potential.can_tag_objects && potential.can_generate_object_free_events &&
                 jvmti_->AddCapabilities(&unloads) == JVMTI_ERROR_NONE;
  return true;
}

void Agent::setEventsEnabled(bool enabled) {
  for (jvmtiEvent event : kSessionEvents) {
    jvmti_->SetEventNotificationMode(enabled ? JVMTI_ENABLE : JVMTI_DISABLE, event, nullptr);
  }
}

jint Agent::onLoad(JavaVM* vm, const char* options) {
  AgentOptions parsed;
  const char* error = nullptr;
  if (!parseAgentOptions(options, parsed, error)) {
    complain("not profiling", error);
    return JNI_OK;
  }
  if (const char* why = initEnvironment(vm, JVMTI_PHASE_ONLOAD)) {
    complain("not profiling", why);
    return JNI_OK;
  }
  int fd = connectChannel(parsed);
  if (fd < 0) {
    // Nobody would resume it: the JVM starts at once, unprofiled, not after the launch hold's timeout.
    complain("not profiling: cannot connect to the jfrbpf channel", std::strerror(errno));
    return JNI_OK;
  }
  pthread_mutex_lock(&handoffLock_);
  launchHeld_ = true;
  pthread_mutex_unlock(&handoffLock_);
  handOver(fd, parsed, /*launched=*/true);  // the agent thread starts at VMInit and picks it up
  return JNI_OK;
}

jint Agent::onAttach(JavaVM* vm, const char* options) {
  AgentOptions parsed;
  const char* error = nullptr;
  if (!parseAgentOptions(options, parsed, error)) {
    complain("attach refused", error);
    return protocol::kAgentBadOptions;
  }
  if (const char* why = initEnvironment(vm, JVMTI_PHASE_LIVE)) {
    if (why == kVmStillStarting) return protocol::kAgentVmStarting;
    complain("attach failed", why);
    return protocol::kAgentJvmtiUnavailable;
  }
  int fd = connectChannel(parsed);
  if (fd < 0) {
    complain("attach failed: cannot connect to the jfrbpf channel", std::strerror(errno));
    return protocol::kAgentNoChannel;
  }
  if (!handOver(fd, parsed, /*launched=*/false)) {
    complain("attach refused", "this JVM serves as many jfrbpf recordings as it can already");
    return protocol::kAgentBusy;
  }
  // A JVM that loaded the agent at its start and has not reached VMInit yet starts the agent thread there;
  // before the live phase no thread can be started.
  jvmtiPhase phase = JVMTI_PHASE_LIVE;
  jvmti_->GetPhase(&phase);
  if (phase == JVMTI_PHASE_LIVE && !agentThreadStarted_.load(std::memory_order_acquire)) {
    JNIEnv* jni = nullptr;
    const char* why = vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK ? "no JNI environment"
                                                                                           : startAgentThread(jni);
    if (why != nullptr) {
      complain("attach failed", why);
      return protocol::kAgentJvmtiUnavailable;
    }
  }
  return protocol::kAgentOk;
}

void Agent::onVmInit(JNIEnv* jni) {
  if (!agentThreadStarted_.load(std::memory_order_acquire)) {
    if (const char* why = startAgentThread(jni)) {
      complain("not profiling", why);
      releaseLaunchHold();
      return;
    }
  }
  waitForLoader();
}

bool Agent::handOver(int fd, const AgentOptions& options, bool launched) {
  pthread_mutex_lock(&handoffLock_);
  const bool room = pendingCount_ + sessionsOpen_ < kMaxSessions;
  if (room) pending_[pendingCount_++] = Pending{fd, options, launched};
  pthread_mutex_unlock(&handoffLock_);
  if (!room) {
    close(fd);
    return false;
  }
  wake();
  return true;
}

void Agent::openPending(JNIEnv* jni) {
  for (;;) {
    Pending taken;
    pthread_mutex_lock(&handoffLock_);
    if (pendingCount_ > 0) {
      taken = pending_[0];
      for (size_t i = 1; i < pendingCount_; ++i) pending_[i - 1] = pending_[i];
      --pendingCount_;
      ++sessionsOpen_;
    }
    pthread_mutex_unlock(&handoffLock_);
    if (taken.fd < 0) return;
    LoaderSession* slot = nullptr;
    for (LoaderSession& session : sessions_) {
      if (!session.open() && session.fd < 0) {
        slot = &session;
        break;
      }
    }
    if (slot == nullptr) {  // cannot happen: handOver counts open sessions
      close(taken.fd);
      markSessionClosed(taken.launched);
      continue;
    }
    slot->fd = taken.fd;
    slot->options = taken.options;
    slot->launched = taken.launched;
    openSession(jni, *slot);
  }
}

void Agent::waitForLoader() {
  timespec deadline{};
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += kLaunchHoldMs / 1000;
  pthread_mutex_lock(&handoffLock_);
  while (launchHeld_) {
    if (pthread_cond_timedwait(&sessionClosedCond_, &handoffLock_, &deadline) == ETIMEDOUT) break;
  }
  launchHeld_ = false;
  pthread_mutex_unlock(&handoffLock_);
}

void Agent::releaseLaunchHold() {
  pthread_mutex_lock(&handoffLock_);
  launchHeld_ = false;
  pthread_cond_broadcast(&sessionClosedCond_);
  pthread_mutex_unlock(&handoffLock_);
}

void Agent::markSessionClosed(bool launched) {
  pthread_mutex_lock(&handoffLock_);
  if (sessionsOpen_ > 0) --sessionsOpen_;
  if (launched) launchHeld_ = false;  // no one else may resume it
  pthread_cond_broadcast(&sessionClosedCond_);
  pthread_mutex_unlock(&handoffLock_);
}

void Agent::wake() {
  uint64_t one = 1;
  ssize_t ignored = write(wakeFd_, &one, sizeof one);
  (void)ignored;  // a full eventfd counter is already a pending wake-up
}

const char* Agent::startAgentThread(JNIEnv* jni) {
  // Once: VMInit and an attach of the same launch may both get here.
  bool expected = false;
  if (!agentThreadStarted_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return nullptr;
  jclass threadClass = jni->FindClass("java/lang/Thread");
  jmethodID constructor = threadClass != nullptr ? jni->GetMethodID(threadClass, "<init>", "(Ljava/lang/String;)V") : nullptr;
  jstring name = constructor != nullptr ? jni->NewStringUTF("jfrbpf agent") : nullptr;
  jobject thread = name != nullptr ? jni->NewObject(threadClass, constructor, name) : nullptr;
  if (thread == nullptr) {
    jni->ExceptionClear();
    agentThreadStarted_.store(false, std::memory_order_release);
    return "cannot create the agent's java.lang.Thread";
  }
  if (jvmti_->RunAgentThread(thread, &Agent::agentThreadMain, this, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
    agentThreadStarted_.store(false, std::memory_order_release);
    return "RunAgentThread failed";
  }
  return nullptr;
}

void Agent::onVmDeath() {
  vmDying_.store(true, std::memory_order_release);
  wake();
  timespec deadline{};
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += kVmDeathWaitMs / 1000;
  pthread_mutex_lock(&handoffLock_);
  while (sessionsOpen_ > 0) {
    if (pthread_cond_timedwait(&sessionClosedCond_, &handoffLock_, &deadline) == ETIMEDOUT) break;
  }
  for (size_t i = 0; i < pendingCount_; ++i) close(pending_[i].fd);
  pendingCount_ = 0;
  pthread_mutex_unlock(&handoffLock_);
}

uint32_t Agent::claim(Feature feature, uint32_t session) {
  uint32_t holder = 0;
  holders_[static_cast<size_t>(feature)].compare_exchange_strong(holder, session, std::memory_order_acq_rel);
  return holder == 0 ? session : holder;
}

size_t Agent::otherSessions(uint32_t session) const {
  size_t others = 0;
  for (const LoaderSession& s : sessions_) {
    const uint32_t number = s.number.load(std::memory_order_acquire);
    if (number != 0 && number != session) ++others;
  }
  return others;
}

void Agent::push(LoaderSession& session, const RecordBuffer& record) {
  bool wasEmpty = false;
  if (!onAgentThread()) {
    if (session.ring.push(record.data(), record.size(), wasEmpty) && wasEmpty) wake();
    return;
  }
  // The agent thread replays; it waits for the loader rather than dropping its own records, and sends
  // as it goes, so that callbacks on other threads rarely find the ring full.
  while (!session.ring.tryPush(record.data(), record.size(), wasEmpty)) {
    if (record.size() > session.ring.capacity() || !makeRoom(session)) {
      session.ring.push(record.data(), record.size(), wasEmpty);  // cannot fit: counted as lost
      return;
    }
  }
  if (session.ring.used() > session.ring.capacity() / 8) flushNonBlocking(session);
}

void Agent::emit(const RecordBuffer& record) {
  if (!record.ok() || !sessionActive()) return;
  if (servedAlone_ != nullptr && onAgentThread()) {
    if (servedAlone_->open()) push(*servedAlone_, record);
    return;
  }
  for (LoaderSession& session : sessions_) {
    if (session.open()) push(session, record);
  }
}

void Agent::emitTo(uint32_t sessionNumber, const RecordBuffer& record) {
  if (!record.ok() || sessionNumber == 0) return;
  for (LoaderSession& session : sessions_) {
    if (session.number.load(std::memory_order_acquire) == sessionNumber) push(session, record);
  }
}

}  // namespace jfrbpf::agent
