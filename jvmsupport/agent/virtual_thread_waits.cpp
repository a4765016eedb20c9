#include "jvmsupport/agent/virtual_thread_waits.h"

#include <algorithm>
#include <cstring>

#include "jvmsupport/agent/agent.h"
#include "jvmsupport/agent/clock.h"
#include "jvmsupport/protocol/virtual_thread_records.h"

namespace jfrbpf::agent {

namespace {

// The budget is a bucket of stacks refilled every window: a burst (a batch of virtual threads waking at once)
// takes from it without changing the interval; a rate over the budget empties it, and only then is the
// interval raised, within a window or two.
constexpr uint64_t kWindowNs = 25'000'000;
constexpr int64_t kStacksPerWindow = VirtualThreadWaits::kMaxStacksPerSecond / (1'000'000'000 / kWindowNs);
constexpr int64_t kBucketStacks = VirtualThreadWaits::kMaxStacksPerSecond / 4;
// How far the picking interval is raised: from 1 us up (an interval of 0 picks every wait), to 10 s.
constexpr int64_t kMinRaisedIntervalNs = 1'000;
constexpr int64_t kMaxIntervalNs = 10'000'000'000;
// The hook's frames above yieldContinuation: waited, virtualThreadWaited, exit.
constexpr jint kHookFrames = 3;
// Where yieldContinuation is looked for, should the JVM show a frame more than expected.
constexpr jint kHookFramesSearched = 8;
// A virtual thread's name, in modified UTF-8 with its terminating NUL.
constexpr jsize kMaxNameBytes = 3 * 128 + 1;

}  // namespace

bool VirtualThreadWaits::prepare(JNIEnv* jni, int64_t intervalNs) {
  baseIntervalNs_.store(intervalNs, std::memory_order_relaxed);
  intervalNs_.store(intervalNs, std::memory_order_relaxed);
  picksInWindow_.store(0, std::memory_order_relaxed);
  stacksLeft_.store(kBucketStacks, std::memory_order_relaxed);
  if (yieldContinuation_.load(std::memory_order_acquire) != nullptr) return true;
  jclass continuation = jni->FindClass("jdk/internal/vm/Continuation");
  jni->ExceptionClear();
  if (continuation != nullptr) {
    jmethodID enter = jni->GetStaticMethodID(continuation, "enter", "(Ljdk/internal/vm/Continuation;Z)V");
    jni->ExceptionClear();
    jmethodID entry = jni->GetStaticMethodID(continuation, "enterSpecial", "(Ljdk/internal/vm/Continuation;ZZ)V");
    jni->ExceptionClear();
    if (enter != nullptr && entry != nullptr) {
      continuationEnter_.store(enter, std::memory_order_relaxed);
      continuationEntry_.store(entry, std::memory_order_relaxed);
    }
    jni->DeleteLocalRef(continuation);
  }
  jclass virtualThread = jni->FindClass("java/lang/VirtualThread");
  jmethodID method = virtualThread != nullptr ? jni->GetMethodID(virtualThread, "yieldContinuation", "()Z") : nullptr;
  jni->ExceptionClear();
  if (virtualThread != nullptr) jni->DeleteLocalRef(virtualThread);
  yieldContinuation_.store(method, std::memory_order_release);
  return method != nullptr;
}

void VirtualThreadWaits::setInterval(JNIEnv* jni, jclass hooks, int64_t intervalNs) {
  jfieldID field = jni->GetStaticFieldID(hooks, "virtualWaitIntervalNs", "J");
  if (field == nullptr) {
    jni->ExceptionClear();
    return;
  }
  jni->SetStaticLongField(hooks, field, intervalNs);
  intervalNs_.store(intervalNs, std::memory_order_relaxed);
}

bool VirtualThreadWaits::takeStackBudget(JNIEnv* jni, jclass hooks, uint64_t now) {
  uint64_t start = windowStartNs_.load(std::memory_order_relaxed);
  if (now - start >= kWindowNs && windowStartNs_.compare_exchange_strong(start, now, std::memory_order_relaxed)) {
    // Windows pass unseen while no virtual thread waits: each refills the bucket all the same.
    const auto windows = static_cast<int64_t>(std::min<uint64_t>((now - start) / kWindowNs, kBucketStacks));
    const int64_t picks = picksInWindow_.exchange(0, std::memory_order_relaxed);
    const int64_t left = std::max<int64_t>(0, stacksLeft_.load(std::memory_order_relaxed));
    stacksLeft_.store(std::min(kBucketStacks, left + windows * kStacksPerWindow), std::memory_order_relaxed);
    const int64_t interval = intervalNs_.load(std::memory_order_relaxed);
    const int64_t base = baseIntervalNs_.load(std::memory_order_relaxed);
    if (left < kStacksPerWindow && picks > kStacksPerWindow && interval < kMaxIntervalNs) {
      // Waits longer than the interval are all picked: only raising it past them helps, so by leaps.
      const int64_t factor = picks > 2 * kStacksPerWindow ? 4 : 2;
      setInterval(jni, hooks, std::min(std::max<int64_t>(interval * factor, kMinRaisedIntervalNs), kMaxIntervalNs));
    } else if (left == kBucketStacks && picks < kStacksPerWindow / 4 && interval > base) {
      setInterval(jni, hooks, interval / 2 > base ? interval / 2 : base);
    }
  }
  picksInWindow_.fetch_add(1, std::memory_order_relaxed);
  return stacksLeft_.fetch_sub(1, std::memory_order_relaxed) > 0;
}

void VirtualThreadWaits::waited(Agent& agent, JNIEnv* jni, jclass hooks, jlong threadId, jstring name,
                                jlong startNs, jlong durationNs, jlong weightNs) {
  if (!agent.sessionActive()) return;
  protocol::VirtualThreadWait wait;
  wait.startNs = static_cast<uint64_t>(startNs);
  wait.durationNs = static_cast<uint64_t>(durationNs);
  wait.weightNs = static_cast<uint64_t>(weightNs);
  wait.threadId = static_cast<uint64_t>(threadId);
  // Most virtual threads have no name ("", as the JDK writes them); a named one's is copied, cut to a bound.
  char nameBytes[kMaxNameBytes];
  const jsize nameLength = name != nullptr ? jni->GetStringLength(name) : 0;
  if (nameLength > 0) {
    const jsize taken = std::min<jsize>(nameLength, kMaxNameBytes / 3);  // modified UTF-8: 3 bytes a char at most
    jni->GetStringUTFRegion(name, 0, taken, nameBytes);
    if (jni->ExceptionCheck()) {
      jni->ExceptionClear();
    } else {
      wait.name = std::string_view(nameBytes, std::strlen(nameBytes));
    }
  }
  uint8_t bytes[kMaxFrames * protocol::kWaitFrameSize];
  if (!takeStackBudget(jni, hooks, monotonicNs()) || !takeStack(agent, wait, bytes)) {
    wait.flags |= protocol::kWaitStackNotTaken;
    wait.frameCount = 0;
  }
  wait.frames = std::span<const uint8_t>(bytes, wait.frameCount * protocol::kWaitFrameSize);
  // For the session whose method timing hooked the waits.
  emitRecordTo(agent, agent.holder(Feature::kMethodTiming), protocol::RecordType::kVirtualThreadWait, wait);
}

bool VirtualThreadWaits::takeStack(Agent& agent, protocol::VirtualThreadWait& wait, uint8_t* bytes) {
  jvmtiFrameInfo frames[kHookFramesSearched + kMaxFrames];
  jint count = 0;
  if (agent.jvmti()->GetStackTrace(nullptr, 0, kHookFramesSearched + kMaxFrames, frames, &count) != JVMTI_ERROR_NONE) {
    return false;
  }
  const auto append = [&](jmethodID method, int32_t bci) {
    const auto methodId = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(method));
    std::memcpy(bytes + wait.frameCount * protocol::kWaitFrameSize, &methodId, sizeof methodId);
    std::memcpy(bytes + wait.frameCount * protocol::kWaitFrameSize + 8, &bci, sizeof bci);
    ++wait.frameCount;
  };
  const jmethodID site = yieldContinuation_.load(std::memory_order_acquire);
  jint first = kHookFrames;
  for (jint i = 0; i < kHookFramesSearched && i < count; ++i) {
    if (frames[i].method == site) {
      first = i + 1;  // the wait's site is its caller: park, parkNanos or tryYield
      break;
    }
  }
  for (jint i = first; i < count && wait.frameCount < static_cast<uint32_t>(kMaxFrames); ++i) {
    append(frames[i].method, static_cast<int32_t>(frames[i].location));
  }
  if (count == kHookFramesSearched + kMaxFrames || count - first > kMaxFrames) {
    wait.flags |= protocol::kWaitStackTruncated;
  } else if (count > first && wait.frameCount < static_cast<uint32_t>(kMaxFrames) &&
             frames[count - 1].method == continuationEnter_.load(std::memory_order_relaxed)) {
    append(continuationEntry_.load(std::memory_order_relaxed), -1);  // a native method: no bci
  }
  return true;
}

void JNICALL virtualThreadWaited(JNIEnv* jni, jclass hooks, jlong threadId, jstring name, jlong startNs,
                                 jlong durationNs, jlong weightNs) {
  if (Agent* agent = Agent::instance()) {
    agent->virtualThreadWaits().waited(*agent, jni, hooks, threadId, name, startNs, durationNs, weightNs);
  }
}

}  // namespace jfrbpf::agent
