#pragma once
// Names the virtual threads a recording's samples ran in, as JDK 25 writes them on each of their events:
// read once per virtual thread from its Thread object (jvm::readThreadName), where the sample's walker saw
// it. Virtual threads are many and most have no name (""), so each is read at most a few times and the
// memory of which were read is bounded; the agent's waits name virtual threads too (--off-cpu).
#include <sys/types.h>

#include <cstdint>
#include <unordered_map>

#include "base/heap_bytes.h"
#include "bpf/sampler_abi.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/jvm/java_model.h"

namespace jfrbpf::record {

class VirtualThreadNames {
 public:
  // Sample `record` of JVM `model` ran in virtual thread `javaThreadId`: names it in `out` if it has a name
  // not read before.
  void learn(const jfrbpf_sample_record& record, int64_t javaThreadId, const jvm::JavaModel& model,
             jfr::Recording& out);

  // Reads that failed (the object had moved, or a read faulted) before the name was read: by then, a sample
  // of another moment usually reads it.
  static constexpr uint8_t kMaxAttempts = 3;
  // Virtual threads remembered; past it, the memory starts over (a thread then read again is named again).
  static constexpr size_t kMaxRemembered = 1 << 16;
  // What remembering them holds, roughly.
  size_t memoryBytes() const { return mapBytes(attempts_); }

 private:
  struct Key {
    pid_t pid;
    int64_t javaThreadId;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& key) const {
      return std::hash<int64_t>{}(key.javaThreadId) ^ (std::hash<pid_t>{}(key.pid) << 1);
    }
  };
  static constexpr uint8_t kRead = 0xFF;
  std::unordered_map<Key, uint8_t, KeyHash> attempts_;  // failed reads so far, or kRead
};

}  // namespace jfrbpf::record
