#include "jvmsupport/agent/virtual_thread_waits.h"

#include <algorithm>
#include <cstring>

#include "jvmsupport/agent/agent.h"
#include "jvmsupport/agent/clock.h"
#include "jvmsupport/protocol/virtual_thread_records.h"

namespace jfrbpf::agent {

namespace {

// Short windows, so that the interval catches up within a few dozen milliseconds of a burst.
constexpr uint64_t kWindowNs = 25'000'000;
constexpr uint32_t kStacksPerWindow = VirtualThreadWaits::kMaxStacksPerSecond / (1'000'000'000 / kWindowNs);
// How far the picking interval is raised: from 1 us up (an interval of 0 picks every wait), to 10 s.
constexpr int64_t kMinRaisedIntervalNs = 1'000;
constexpr int64_t kMaxIntervalNs = 10'000'000'000;
// The hook's frames above yieldContinuation: waited, virtualThreadWaited, exit.
constexpr jint kHookFrames = 3;
// Where yieldContinuation is looked for, should the JVM show a frame more than expected.
constexpr jint kHookFramesSearched = 8;

}  // namespace

bool VirtualThreadWaits::prepare(JNIEnv* jni, int64_t intervalNs) {
  baseIntervalNs_.store(intervalNs, std::memory_order_relaxed);
  intervalNs_.store(intervalNs, std::memory_order_relaxed);
  picksInWindow_.store(0, std::memory_order_relaxed);
  if (yieldContinuation_.load(std::memory_order_acquire) != nullptr) return true;
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
    const uint32_t picks = picksInWindow_.exchange(0, std::memory_order_relaxed);
    const int64_t interval = intervalNs_.load(std::memory_order_relaxed);
    const int64_t base = baseIntervalNs_.load(std::memory_order_relaxed);
    if (picks > kStacksPerWindow && interval < kMaxIntervalNs) {
      // Waits longer than the interval are all picked: only raising it past them helps, so by leaps.
      const int64_t factor = picks > 2 * kStacksPerWindow ? 4 : 2;
      setInterval(jni, hooks, std::min(std::max<int64_t>(interval * factor, kMinRaisedIntervalNs), kMaxIntervalNs));
    } else if (picks < kStacksPerWindow / 4 && interval > base) {
      setInterval(jni, hooks, interval / 2 > base ? interval / 2 : base);
    }
  }
  return picksInWindow_.fetch_add(1, std::memory_order_relaxed) < kStacksPerWindow;
}

void VirtualThreadWaits::waited(Agent& agent, JNIEnv* jni, jclass hooks, jlong threadId, jlong startNs,
                                jlong durationNs, jlong weightNs) {
  if (!agent.sessionActive()) return;
  protocol::VirtualThreadWait wait;
  wait.startNs = static_cast<uint64_t>(startNs);
  wait.durationNs = static_cast<uint64_t>(durationNs);
  wait.weightNs = static_cast<uint64_t>(weightNs);
  wait.threadId = static_cast<uint64_t>(threadId);

  jvmtiFrameInfo frames[kHookFramesSearched + kMaxFrames];
  jint count = 0;
  uint8_t bytes[kMaxFrames * protocol::kWaitFrameSize];
  if (!takeStackBudget(jni, hooks, monotonicNs())) {
    wait.flags |= protocol::kWaitStackNotTaken;
  } else if (agent.jvmti()->GetStackTrace(nullptr, 0, kHookFramesSearched + kMaxFrames, frames, &count) ==
             JVMTI_ERROR_NONE) {
    const jmethodID site = yieldContinuation_.load(std::memory_order_acquire);
    jint first = kHookFrames;
    for (jint i = 0; i < kHookFramesSearched && i < count; ++i) {
      if (frames[i].method == site) {
        first = i + 1;  // the wait's site is its caller: park, parkNanos or tryYield
        break;
      }
    }
    if (count == kHookFramesSearched + kMaxFrames) wait.flags |= protocol::kWaitStackTruncated;
    for (jint i = first; i < count && wait.frameCount < static_cast<uint32_t>(kMaxFrames); ++i) {
      const auto methodId = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(frames[i].method));
      const auto bci = static_cast<int32_t>(frames[i].location);
      std::memcpy(bytes + wait.frameCount * protocol::kWaitFrameSize, &methodId, sizeof methodId);
      std::memcpy(bytes + wait.frameCount * protocol::kWaitFrameSize + 8, &bci, sizeof bci);
      ++wait.frameCount;
    }
    if (count - first > kMaxFrames) wait.flags |= protocol::kWaitStackTruncated;
  } else {
    wait.flags |= protocol::kWaitStackNotTaken;
  }
  wait.frames = std::span<const uint8_t>(bytes, wait.frameCount * protocol::kWaitFrameSize);
  emitRecord(agent, protocol::RecordType::kVirtualThreadWait, wait);
}

void JNICALL virtualThreadWaited(JNIEnv* jni, jclass hooks, jlong threadId, jlong startNs, jlong durationNs,
                                 jlong weightNs) {
  if (Agent* agent = Agent::instance()) {
    agent->virtualThreadWaits().waited(*agent, jni, hooks, threadId, startNs, durationNs, weightNs);
  }
}

}  // namespace jfrbpf::agent
