#include "jvmsupport/agent/method_timer.h"

#include <time.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "jvmsupport/agent/agent.h"
#include "jvmsupport/agent/class_reporter.h"
#include "jvmsupport/agent/clock.h"
#include "jvmsupport/agent/hook_stubs.h"
#include "jvmsupport/agent/jvmti_memory.h"
#include "jvmsupport/agent/virtual_thread_waits.h"
#include "jvmsupport/classfile/rewriter.h"

namespace jfrbpf::agent {

namespace {

constexpr jint kRetransformBatch = 32;
// Skip reasons are for people: the first ones tell the story, a flood would only fill the channel.
constexpr uint32_t kMaxSkipReports = 200;
constexpr int kStopWaitMs = 2000;
constexpr char kAgentPackage[] = "jfrbpf/agent/";
// What JVMTI's GetMethodModifiers / GetClassModifiers keep of the class file's access flags.
constexpr uint32_t kRecognizedMethodModifiers = 0x1DFF;
constexpr uint32_t kWrittenClassModifiers = 0x7FFF & ~0x0020u;  // ACC_SUPER is never reported
constexpr uint32_t kAccAbstract = 0x0400;
constexpr uint32_t kAccNative = 0x0100;

// "Lcom/foo/Bar;" -> "com/foo/Bar"; empty for arrays, primitives and hidden classes (never modifiable).
std::string internalClassName(jvmtiEnv* jvmti, jclass klass) {
  JvmtiString signature(jvmti);
  if (jvmti->GetClassSignature(klass, signature.out(), nullptr) != JVMTI_ERROR_NONE || signature.get() == nullptr) {
    return {};
  }
  std::string_view sig(signature.get());
  if (sig.size() < 3 || sig.front() != 'L' || sig.back() != ';' || sig.find('.') != std::string_view::npos) return {};
  return std::string(sig.substr(1, sig.size() - 2));
}

bool hasAnnotationTargets(const filter::Filter& filter) {
  for (const filter::Target& target : filter.targets()) {
    if (target.kind == filter::Target::Kind::kAnnotation) return true;
  }
  return false;
}

// True when a class-specific target names `className`: only then is a class-level failure worth a report.
bool namesClass(const filter::Filter& filter, std::string_view className) {
  for (const filter::Target& target : filter.targets()) {
    if ((target.kind == filter::Target::Kind::kClass || target.kind == filter::Target::Kind::kClassMethod) &&
        target.className == className) {
      return true;
    }
  }
  return false;
}

// The waits of virtual threads: the method on a virtual thread's stack while it is unmounted.
constexpr std::string_view kVirtualThreadClass = "java/lang/VirtualThread";
bool isVirtualWaitSite(std::string_view className, std::string_view methodName, std::string_view descriptor) {
  return className == kVirtualThreadClass && methodName == "yieldContinuation" && descriptor == "()Z";
}

bool isOwnClass(std::string_view className) {
  return className == kHookClassName || className.substr(0, sizeof kAgentPackage - 1) == kAgentPackage;
}

// Methods the hook class runs on every timed exit: instrumenting them would recurse without end.
bool hooksUse(std::string_view className, std::string_view methodName) {
  if (className == "jdk/internal/misc/Unsafe") return true;
  if (className == "java/lang/Thread") {
    return methodName == "currentThread" || methodName == "getId" || methodName == "threadId" ||
           methodName == "getName";
  }
  return className == "java/lang/System" && methodName == "nanoTime";
}

void sleepMs(int ms) {
  timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

}  // namespace

bool MethodTimer::addCapabilities(jvmtiEnv* jvmti, const char*& error) {
  if (capabilitiesAdded_) return true;
  jvmtiCapabilities potential{};
  if (jvmti->GetPotentialCapabilities(&potential) != JVMTI_ERROR_NONE || !potential.can_retransform_classes) {
    error = "this JVM cannot retransform classes (JVMTI can_retransform_classes unavailable)";
    return false;
  }
  jvmtiCapabilities wanted{};
  wanted.can_retransform_classes = 1;
  wanted.can_retransform_any_class = potential.can_retransform_any_class;
  wanted.can_get_constant_pool = potential.can_get_constant_pool;
  if (jvmti->AddCapabilities(&wanted) != JVMTI_ERROR_NONE) {
    error = "the JVM refused the class retransformation capability (another agent may hold it exclusively)";
    return false;
  }
  canReadConstantPool_ = wanted.can_get_constant_pool != 0;
  capabilitiesAdded_ = true;
  return true;
}

void MethodTimer::sendStatus(Agent& agent, uint32_t session, protocol::TimingState state, const char* message) {
  protocol::TimingStatus status;
  status.time = monotonicNs();
  status.state = static_cast<uint32_t>(state);
  status.classesInstrumented = classesInstrumented_.load(std::memory_order_relaxed);
  status.methodsInstrumented = methodsInstrumented_.load(std::memory_order_relaxed);
  status.methodsSkipped = methodsSkipped_.load(std::memory_order_relaxed);
  status.classesFailed = classesFailed_;
  if (state == protocol::TimingState::kApplied) {
    status.tableAddress = table_.address();
    status.tableBytes = table_.mappedBytes();
  }
  status.message = message != nullptr ? message : "";
  emitRecordTo(agent, session, protocol::RecordType::kTimingStatus, status);
}

void MethodTimer::skipped(Agent& agent, std::string_view className, std::string_view methodName,
                          std::string_view descriptor, std::string_view reason) {
  if (skipReports_.fetch_add(1, std::memory_order_relaxed) >= kMaxSkipReports) return;
  protocol::TimingSkipped record;
  record.time = monotonicNs();
  record.className = className;
  record.methodName = methodName;
  record.descriptor = descriptor;
  record.reason = reason;
  emitRecordTo(agent, session_, protocol::RecordType::kTimingSkipped, record);
}

void MethodTimer::start(Agent& agent, JNIEnv* jni, uint32_t session, std::span<const uint8_t> command) {
  protocol::StartTiming request;
  if (!protocol::decode(command, request)) {
    sendStatus(agent, session, protocol::TimingState::kUnavailable, "malformed StartTiming command");
    return;
  }
  char heldElsewhere[kHeldMessageSize];
  const uint32_t holder = agent.claim(Feature::kMethodTiming, session);
  if (holder != session) {
    sendStatus(agent, session, protocol::TimingState::kUnavailable,
               describeHolder(heldElsewhere, "instruments its methods", holder));
    return;
  }
  if (state_.load(std::memory_order_acquire) != kIdle || inFlight_.load(std::memory_order_acquire) != 0) {
    sendStatus(agent, session, protocol::TimingState::kUnavailable, "method timing is already running in this session");
    return;
  }
  // Whatever fails from here leaves method timing free for another session.
  auto refuse = [&](const char* message) {
    agent.release(Feature::kMethodTiming);
    sendStatus(agent, session, protocol::TimingState::kUnavailable, message);
  };
  filter::FilterParseResult timing = filter::parseFilter(request.timingFilter);
  filter::FilterParseResult trace = filter::parseFilter(request.traceFilter);
  if (timing.error || trace.error) {
    refuse("the agent could not parse the method filters");
    return;
  }
  uint32_t limit = request.slotLimit;
  if (limit > protocol::kHookSlotMask + 1) limit = protocol::kHookSlotMask + 1;
  if (request.slotBase >= limit) {
    refuse("no method slots were assigned to this JVM");
    return;
  }
  const char* error = nullptr;
  protocol::TimingTableHeader* table = nullptr;
  if (!addCapabilities(agent.jvmti(), error) || !hookClass_.install(agent.jvmti(), jni, &virtualThreadWaited, error) ||
      (table = table_.prepare(request.slotBase, limit - request.slotBase, error)) == nullptr) {
    refuse(error);
    return;
  }
  const auto waitInterval = static_cast<int64_t>(std::min<uint64_t>(request.virtualWaitIntervalNs, INT64_MAX));
  virtualThreadWaits_ = request.virtualWaitIntervalNs != protocol::kNoVirtualThreadWaits &&
                        agent.virtualThreadWaits().prepare(jni, waitInterval);
  session_ = session;
  recording_ = hookClass_.arm(jni, table, session, request.traceThresholdNs, virtualThreadWaits_ ? waitInterval : -1);

  timing_ = std::move(timing.filter);
  trace_ = std::move(trace.filter);
  annotationTargets_ = hasAnnotationTargets(timing_) || hasAnnotationTargets(trace_);
  nextSlot_.store(request.slotBase, std::memory_order_relaxed);
  slotLimit_ = limit;
  classesInstrumented_ = methodsInstrumented_ = methodsSkipped_ = skipReports_ = 0;
  classesFailed_ = 0;
  // Before any class can be instrumented: modules of JDK and application classes may then link to the hooks.
  hookClass_.grantReadsToAllModules(agent.jvmti(), jni);
  state_.store(kActive, std::memory_order_release);
  // --off-cpu asks every JVM for its virtual threads' waits: one that has none, with no filters, has nothing
  // to instrument, and its class loading stays as it was.
  if (!timing_.targets().empty() || !trace_.targets().empty() || virtualThreadWaits_) {
    agent.jvmti()->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, nullptr);
    instrumentLoadedClasses(agent, jni);
  }
  sendStatus(agent, session, protocol::TimingState::kApplied, nullptr);
}

bool MethodTimer::constantPoolMentions(jvmtiEnv* jvmti, jclass klass, const filter::Filter& filter) {
  jint count = 0, bytes = 0;
  JvmtiArray<unsigned char> pool(jvmti);
  if (jvmti->GetConstantPool(klass, &count, &bytes, pool.out()) != JVMTI_ERROR_NONE || pool.get() == nullptr) {
    return true;  // cannot tell: let the class file decide
  }
  std::string_view text(reinterpret_cast<const char*>(pool.get()), static_cast<size_t>(bytes));
  for (const filter::Target& target : filter.targets()) {
    if (target.kind == filter::Target::Kind::kAnnotation && text.find(target.annotation) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

bool MethodTimer::mayInstrument(std::string_view className) const {
  return timing_.mayMatchClass(className) || trace_.mayMatchClass(className) ||
         (virtualThreadWaits_ && className == kVirtualThreadClass);
}

bool MethodTimer::isCandidate(Agent& agent, jclass klass, std::string_view className) {
  if (!mayInstrument(className)) return false;
  if (virtualThreadWaits_ && className == kVirtualThreadClass) return true;
  jvmtiEnv* jvmti = agent.jvmti();
  // Annotations are invisible to JVMTI, but their type names sit in the constant pool.
  if (annotationTargets_ &&
      (!canReadConstantPool_ || constantPoolMentions(jvmti, klass, timing_) || constantPoolMentions(jvmti, klass, trace_))) {
    return true;
  }
  jint methodCount = 0;
  JvmtiArray<jmethodID> methods(jvmti);
  if (jvmti->GetClassMethods(klass, &methodCount, methods.out()) != JVMTI_ERROR_NONE) return false;
  // An initialized class never runs its static initializer again: not worth retransforming for it alone.
  jint status = 0;
  const bool initialized = jvmti->GetClassStatus(klass, &status) == JVMTI_ERROR_NONE &&
                           (status & JVMTI_CLASS_STATUS_INITIALIZED) != 0;
  for (jint i = 0; i < methodCount; ++i) {
    JvmtiString name(jvmti);
    jint modifiers = 0;
    if (jvmti->GetMethodName(methods.get()[i], name.out(), nullptr, nullptr) != JVMTI_ERROR_NONE ||
        jvmti->GetMethodModifiers(methods.get()[i], &modifiers) != JVMTI_ERROR_NONE || name.get() == nullptr) {
      continue;
    }
    if ((static_cast<uint32_t>(modifiers) & (kAccAbstract | kAccNative)) != 0) continue;
    if (initialized && std::string_view(name.get()) == "<clinit>") continue;
    filter::MethodCandidate candidate{className, name.get(), static_cast<uint16_t>(modifiers), {}, {}};
    if (timing_.matches(candidate) || trace_.matches(candidate)) return true;
  }
  return false;
}

bool MethodTimer::wasInstrumented(std::string_view className) {
  pthread_mutex_lock(&lock_);
  bool found = instrumentedClasses_.count(std::string(className)) != 0;
  pthread_mutex_unlock(&lock_);
  return found;
}

void MethodTimer::retransform(Agent& agent, jclass* classes, jint count, bool instrumenting, bool reportClasses) {
  jvmtiEnv* jvmti = agent.jvmti();
  for (jint i = 0; i < count; ++i) previousVersions_.remember(jvmti, agent.layout(), classes[i]);
  bool batchDone = jvmti->RetransformClasses(count, classes) == JVMTI_ERROR_NONE;
  for (jint i = 0; i < count; ++i) {
    jvmtiError error = JVMTI_ERROR_NONE;
    if (!batchDone && (error = jvmti->RetransformClasses(1, &classes[i])) != JVMTI_ERROR_NONE) {
      if (!instrumenting) continue;  // restoring: a class that refuses keeps whatever it has
      ++classesFailed_;
      std::string name = internalClassName(jvmti, classes[i]);
      char reason[96];
      std::snprintf(reason, sizeof reason, "the JVM refused to retransform the class (JVMTI error %d)",
                    static_cast<int>(error));
      skipped(agent, name, {}, {}, reason);
      continue;
    }
    if (reportClasses) {
      std::string name = internalClassName(jvmti, classes[i]);
      uint32_t methods = 0;
      if (!name.empty() && wasInstrumented(name)) reportClass(agent, classes[i], 0, methods);
    }
  }
}

void MethodTimer::instrumentLoadedClasses(Agent& agent, JNIEnv* jni) {
  jvmtiEnv* jvmti = agent.jvmti();
  jint count = 0;
  JvmtiArray<jclass> loaded(jvmti);
  if (jvmti->GetLoadedClasses(&count, loaded.out()) != JVMTI_ERROR_NONE) return;
  std::vector<jclass> batch;
  batch.reserve(kRetransformBatch);
  auto flush = [&] {
    if (!batch.empty()) retransform(agent, batch.data(), static_cast<jint>(batch.size()), true, true);
    for (jclass klass : batch) jni->DeleteLocalRef(klass);
    batch.clear();
  };
  for (jint i = 0; i < count; ++i) {
    jclass klass = loaded.get()[i];
    jboolean modifiable = JNI_FALSE;
    std::string name;
    bool candidate = agent.sessionActive() && jvmti->IsModifiableClass(klass, &modifiable) == JVMTI_ERROR_NONE &&
                     modifiable && !(name = internalClassName(jvmti, klass)).empty() && !isOwnClass(name) &&
                     isCandidate(agent, klass, name);
    if (!candidate) {
      jni->DeleteLocalRef(klass);
      continue;
    }
    batch.push_back(klass);
    if (batch.size() == static_cast<size_t>(kRetransformBatch)) flush();
  }
  flush();
}

void MethodTimer::onClassFileLoad(Agent& agent, jclass beingRedefined, const char* name, jint length,
                                  const unsigned char* data, jint* newLength, unsigned char** newData) {
  if (state_.load(std::memory_order_acquire) != kActive) return;
  InFlight inFlight(inFlight_);
  if (state_.load(std::memory_order_acquire) != kActive || name == nullptr || data == nullptr || length <= 0) return;
  std::string_view className(name);
  if (isOwnClass(className) || !mayInstrument(className)) return;

  uint32_t classModifiers = 0;
  bool slotsExhausted = false;
  std::vector<std::pair<int32_t, uint32_t>> methodModifiers;  // hook index -> access flags
  classfile::MethodSelector select = [&](const classfile::ClassInfo& c,
                                         const classfile::MethodInfo& m) -> std::optional<int32_t> {
    filter::MethodCandidate candidate{c.name, m.name, m.accessFlags, c.annotations, m.annotations};
    uint32_t flags = (timing_.matches(candidate) ? protocol::kHookTimed : 0) |
                     (trace_.matches(candidate) ? protocol::kHookTraced : 0);
    const uint32_t waitSite =
        virtualThreadWaits_ && isVirtualWaitSite(c.name, m.name, m.descriptor) ? protocol::kHookVirtualWait : 0;
    if (flags == 0) return waitSite != 0 ? std::optional<int32_t>(static_cast<int32_t>(waitSite)) : std::nullopt;
    if (hooksUse(c.name, m.name)) {
      methodsSkipped_.fetch_add(1, std::memory_order_relaxed);
      skipped(agent, c.name, m.name, m.descriptor, "called by jfrbpf's timing hooks themselves: timing it would recurse");
      return std::nullopt;
    }
    uint32_t slot = nextSlot_.fetch_add(1, std::memory_order_relaxed);
    if (slot >= slotLimit_) {
      slotsExhausted = true;
      return std::nullopt;
    }
    int32_t index = static_cast<int32_t>(slot | flags | waitSite);
    classModifiers = c.accessFlags & kWrittenClassModifiers;
    methodModifiers.emplace_back(index, m.accessFlags & kRecognizedMethodModifiers);
    return index;
  };
  classfile::HookConfig hooks{kHookClassName, kHookEnterMethod, kHookExitMethod, recording_};
  classfile::RewriteResult result = classfile::rewriteClass(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data), static_cast<size_t>(length)), hooks, select);

  if (!result.error.empty() && (namesClass(timing_, className) || namesClass(trace_, className))) {
    skipped(agent, className, {}, {}, result.error);
  }
  if (slotsExhausted) skipped(agent, className, {}, {}, "more methods selected than this JVM's slots allow");
  for (const classfile::SkippedMethod& s : result.skipped) {
    methodsSkipped_.fetch_add(1, std::memory_order_relaxed);
    skipped(agent, className, s.methodName, s.descriptor, s.reason);
  }
  if (!result.modified()) return;

  unsigned char* bytes = nullptr;
  if (agent.jvmti()->Allocate(static_cast<jlong>(result.bytes.size()), &bytes) != JVMTI_ERROR_NONE) return;
  std::memcpy(bytes, result.bytes.data(), result.bytes.size());
  *newData = bytes;
  *newLength = static_cast<jint>(result.bytes.size());

  pthread_mutex_lock(&lock_);
  instrumentedClasses_.emplace(className);
  if (beingRedefined == nullptr) awaitingPrepare_.emplace(className);
  pthread_mutex_unlock(&lock_);
  // The waits' hook alone is no timed method: the user asked for none.
  uint32_t timedOrTraced = 0;
  uint64_t now = monotonicNs();
  for (const classfile::InstrumentedMethod& m : result.instrumented) {
    if ((static_cast<uint32_t>(m.index) & (protocol::kHookTimed | protocol::kHookTraced)) == 0) continue;
    ++timedOrTraced;
    protocol::TimedMethod record;
    record.time = now;
    record.hookIndex = static_cast<uint32_t>(m.index);
    record.classModifiers = classModifiers;
    for (const auto& [index, modifiers] : methodModifiers) {
      if (index == m.index) record.methodModifiers = modifiers;
    }
    record.className = m.className;
    record.methodName = m.methodName;
    record.descriptor = m.descriptor;
    emitRecordTo(agent, session_, protocol::RecordType::kTimedMethod, record);
  }
  if (timedOrTraced > 0) classesInstrumented_.fetch_add(1, std::memory_order_relaxed);
  methodsInstrumented_.fetch_add(timedOrTraced, std::memory_order_relaxed);
}

void MethodTimer::onClassPrepare(Agent& agent, JNIEnv* jni, jclass klass) {
  if (state_.load(std::memory_order_acquire) != kActive) return;
  pthread_mutex_lock(&lock_);
  bool any = !awaitingPrepare_.empty();
  pthread_mutex_unlock(&lock_);
  if (!any) return;
  std::string name = internalClassName(agent.jvmti(), klass);
  pthread_mutex_lock(&lock_);
  bool awaited = !name.empty() && awaitingPrepare_.erase(name) != 0;
  pthread_mutex_unlock(&lock_);
  if (awaited) hookClass_.grantReads(agent.jvmti(), jni, klass);
}

void MethodTimer::stop(Agent& agent, JNIEnv* jni, bool othersRecord) {
  if (state_.load(std::memory_order_acquire) == kIdle) return;
  state_.store(kRestoring, std::memory_order_release);
  jvmtiEnv* jvmti = agent.jvmti();
  jint count = 0;
  JvmtiArray<jclass> loaded(jvmti);
  if (jvmti->GetLoadedClasses(&count, loaded.out()) == JVMTI_ERROR_NONE) {
    std::vector<jclass> batch;
    for (jint i = 0; i < count; ++i) {
      jclass klass = loaded.get()[i];
      std::string name = internalClassName(jvmti, klass);
      if (!name.empty() && wasInstrumented(name)) {
        batch.push_back(klass);
        if (batch.size() == static_cast<size_t>(kRetransformBatch)) {
          retransform(agent, batch.data(), static_cast<jint>(batch.size()), false, othersRecord);
          for (jclass done : batch) jni->DeleteLocalRef(done);
          batch.clear();
        }
      } else {
        jni->DeleteLocalRef(klass);
      }
    }
    if (!batch.empty()) retransform(agent, batch.data(), static_cast<jint>(batch.size()), false, othersRecord);
    for (jclass done : batch) jni->DeleteLocalRef(done);
  }
  jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, nullptr);
  hookClass_.disarm(jni);
  for (int waited = 0; inFlight_.load(std::memory_order_acquire) != 0 && waited < kStopWaitMs; ++waited) sleepMs(1);
  state_.store(kIdle, std::memory_order_release);
  if (inFlight_.load(std::memory_order_acquire) != 0) return;  // a hook call is stuck: keep its filters alive
  timing_ = filter::Filter();
  trace_ = filter::Filter();
  virtualThreadWaits_ = false;
  pthread_mutex_lock(&lock_);
  instrumentedClasses_.clear();
  awaitingPrepare_.clear();
  pthread_mutex_unlock(&lock_);
}

}  // namespace jfrbpf::agent
