#pragma once
// Thread records: ThreadStart/ThreadEnd from the JVMTI events (which run on the thread itself, so gettid()
// is its OS tid), one replayed ThreadStart per existing thread (tid through VMStructs), and renames
// noticed by polling, since Thread.setName raises no JVMTI event.
#include <jvmti.h>

#include <cstddef>
#include <cstdint>

namespace jfrbpf::agent {

class Agent;

void reportThreadStart(Agent& agent, JNIEnv* jni, jthread thread, int32_t tid, uint32_t flags);
void reportThreadEnd(Agent& agent, JNIEnv* jni, jthread thread, int32_t tid);

// Agent thread only: the threads that exist now, and their names over time.
class ThreadNamePoller {
 public:
  // One ThreadStart (kThreadReplayed) per live platform thread, remembering the names sent; returns how
  // many were sent.
  uint32_t replay(Agent& agent, JNIEnv* jni);
  // Compares every thread's name with the last one seen and sends ThreadRename for threads that are new
  // since the last poll or renamed.
  void poll(Agent& agent, JNIEnv* jni);
  void reset() { known_.clear(); }

  // Java thread id -> hash of its name, sorted by id; malloc-backed like everything in the agent.
  class NameHashes {
   public:
    NameHashes() = default;
    NameHashes(const NameHashes&) = delete;
    NameHashes& operator=(const NameHashes&) = delete;
    ~NameHashes();
    void clear() { size_ = 0; }
    // Appends (ids may come in any order; call sort() before find()). False if memory ran out.
    bool add(int64_t id, uint64_t hash);
    void sort();
    const uint64_t* find(int64_t id) const;
    void swap(NameHashes& other);

   private:
    struct Entry {
      int64_t id;
      uint64_t hash;
    };
    Entry* entries_ = nullptr;
    size_t size_ = 0;
    size_t capacity_ = 0;
  };

 private:
  NameHashes known_;
};

}  // namespace jfrbpf::agent
