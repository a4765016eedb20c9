#include "jvmsupport/agent/thread_reporter.h"

#include <jvmti.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "jvmsupport/agent/agent.h"
#include "jvmsupport/agent/clock.h"
#include "jvmsupport/agent/jvmti_memory.h"

namespace jfrbpf::agent {

namespace {

struct ThreadFacts {
  int64_t javaThreadId = 0;
  uintptr_t javaThread = 0;  // JavaThread*, for the BPF walker's JavaFrameAnchor fallback
  bool daemon = false;
  bool isVirtual = false;
};

// Name and flags of `thread`; false if the thread is gone. `name` is JVMTI memory owned by `nameOwner`.
bool threadFacts(Agent& agent, JNIEnv* jni, jthread thread, JvmtiString& nameOwner, ThreadFacts& facts) {
  jvmtiThreadInfo info{};
  if (agent.jvmti()->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE) return false;
  *nameOwner.out() = info.name;
  if (info.thread_group != nullptr) jni->DeleteLocalRef(info.thread_group);
  if (info.context_class_loader != nullptr) jni->DeleteLocalRef(info.context_class_loader);
  facts.daemon = info.is_daemon != 0;
  facts.javaThreadId = agent.threadIdentity().javaThreadId(jni, thread);
  facts.isVirtual = agent.threadIdentity().isVirtual(jni, thread);
  facts.javaThread = facts.isVirtual ? 0 : agent.threadIdentity().javaThreadPointer(jni, thread);
  return true;
}

std::string_view nameOf(const JvmtiString& owner) {
  return owner.get() == nullptr ? std::string_view{} : std::string_view(owner.get());
}

// OS tid of an existing thread through its JavaThread; the eetop re-read proves the JavaThread was not
// freed while we read it (HotSpot clears eetop before deleting the JavaThread).
int32_t existingThreadTid(Agent& agent, JNIEnv* jni, jthread thread) {
  if (!agent.layout().threadTidsEnabled()) return 0;
  uintptr_t javaThread = agent.threadIdentity().javaThreadPointer(jni, thread);
  int32_t tid = 0;
  if (javaThread == 0 || !agent.layout().osTid(javaThread, tid)) return 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return agent.threadIdentity().javaThreadPointer(jni, thread) == javaThread ? tid : 0;
}

uint64_t hashName(std::string_view name) {
  uint64_t h = 1469598103934665603ull;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

void sendThreadStart(Agent& agent, int32_t tid, uint32_t flags, const ThreadFacts& facts, std::string_view name) {
  protocol::ThreadStart r;
  r.time = monotonicNs();
  r.tid = tid > 0 ? static_cast<uint32_t>(tid) : 0;
  r.flags = flags | (facts.daemon ? protocol::kThreadDaemon : 0) | (facts.isVirtual ? protocol::kThreadVirtual : 0);
  r.javaThreadId = static_cast<uint64_t>(facts.javaThreadId);
  r.name = name;
  r.javaThread = facts.javaThread;
  RecordBuffer buffer;
  buffer.begin(protocol::RecordType::kThreadStart);
  Writer w(buffer);
  protocol::encode(w, r);
  if (buffer.finish()) agent.emit(buffer);
}

}  // namespace

void reportThreadStart(Agent& agent, JNIEnv* jni, jthread thread, int32_t tid, uint32_t flags) {
  JvmtiString name(agent.jvmti());
  ThreadFacts facts;
  if (threadFacts(agent, jni, thread, name, facts)) sendThreadStart(agent, tid, flags, facts, nameOf(name));
}

void reportThreadEnd(Agent& agent, JNIEnv* jni, jthread thread, int32_t tid) {
  protocol::ThreadEnd r;
  r.time = monotonicNs();
  r.tid = tid > 0 ? static_cast<uint32_t>(tid) : 0;
  r.javaThreadId = static_cast<uint64_t>(agent.threadIdentity().javaThreadId(jni, thread));
  RecordBuffer buffer;
  buffer.begin(protocol::RecordType::kThreadEnd);
  Writer w(buffer);
  protocol::encode(w, r);
  if (buffer.finish()) agent.emit(buffer);
}

ThreadNamePoller::NameHashes::~NameHashes() { std::free(entries_); }

bool ThreadNamePoller::NameHashes::add(int64_t id, uint64_t hash) {
  if (size_ == capacity_) {
    size_t grown = capacity_ == 0 ? 64 : capacity_ * 2;
    void* bigger = std::realloc(entries_, grown * sizeof(Entry));
    if (bigger == nullptr) return false;
    entries_ = static_cast<Entry*>(bigger);
    capacity_ = grown;
  }
  entries_[size_++] = {id, hash};
  return true;
}

void ThreadNamePoller::NameHashes::sort() {
  std::sort(entries_, entries_ + size_, [](const Entry& a, const Entry& b) { return a.id < b.id; });
}

const uint64_t* ThreadNamePoller::NameHashes::find(int64_t id) const {
  const Entry* it = std::lower_bound(entries_, entries_ + size_, id, [](const Entry& e, int64_t key) { return e.id < key; });
  return it != entries_ + size_ && it->id == id ? &it->hash : nullptr;
}

void ThreadNamePoller::NameHashes::swap(NameHashes& other) {
  std::swap(entries_, other.entries_);
  std::swap(size_, other.size_);
  std::swap(capacity_, other.capacity_);
}

uint32_t ThreadNamePoller::replay(Agent& agent, JNIEnv* jni) {
  jint count = 0;
  JvmtiArray<jthread> threads(agent.jvmti());
  if (agent.jvmti()->GetAllThreads(&count, threads.out()) != JVMTI_ERROR_NONE) return 0;
  known_.clear();
  uint32_t sent = 0;
  for (jint i = 0; i < count && agent.sessionActive(); ++i) {
    jthread thread = threads.get()[i];
    JvmtiString name(agent.jvmti());
    ThreadFacts facts;
    if (threadFacts(agent, jni, thread, name, facts)) {
      known_.add(facts.javaThreadId, hashName(nameOf(name)));
      sendThreadStart(agent, existingThreadTid(agent, jni, thread), protocol::kThreadReplayed, facts, nameOf(name));
      ++sent;
    }
  }
  known_.sort();
  for (jint i = 0; i < count; ++i) jni->DeleteLocalRef(threads.get()[i]);
  return sent;
}

void ThreadNamePoller::poll(Agent& agent, JNIEnv* jni) {
  jint count = 0;
  JvmtiArray<jthread> threads(agent.jvmti());
  if (agent.jvmti()->GetAllThreads(&count, threads.out()) != JVMTI_ERROR_NONE) return;
  NameHashes seen;
  for (jint i = 0; i < count; ++i) {
    jthread thread = threads.get()[i];
    JvmtiString name(agent.jvmti());
    ThreadFacts facts;
    if (threadFacts(agent, jni, thread, name, facts)) {
      uint64_t hash = hashName(nameOf(name));
      seen.add(facts.javaThreadId, hash);
      const uint64_t* known = known_.find(facts.javaThreadId);
      if (known == nullptr || *known != hash) {
        protocol::ThreadRename r;
        r.time = monotonicNs();
        r.tid = static_cast<uint32_t>(existingThreadTid(agent, jni, thread));
        r.javaThreadId = static_cast<uint64_t>(facts.javaThreadId);
        r.name = nameOf(name);
        RecordBuffer buffer;
        buffer.begin(protocol::RecordType::kThreadRename);
        Writer w(buffer);
        protocol::encode(w, r);
        if (buffer.finish()) agent.emit(buffer);
      }
    }
    jni->DeleteLocalRef(thread);
  }
  seen.sort();
  known_.swap(seen);
}

}  // namespace jfrbpf::agent
