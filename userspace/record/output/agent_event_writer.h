#pragma once
// Turns the agents' own events into JFR events: trace records whose hook index has JFRBPF_HOOK_ALLOCATION
// (an allocation sample: the object's class id, its weight in bytes) or JFRBPF_HOOK_LOCK (a wait for a
// monitor or a park: its class id, start, duration, timeout and the object's address). Each becomes
// jdk.ObjectAllocationSample, jdk.JavaMonitorEnter, jdk.JavaMonitorWait or jdk.ThreadPark with the thread and its stack from
// the event's Java site down (the agent's callback and the JVM's frames above it left out). An event whose
// class or code the agent has not described yet waits for its records (jvm::MetadataWait), then is written as
// well as it can be.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "bpf/method_timer_abi.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/jvm/java_model.h"
#include "userspace/jvm/metadata_wait.h"
#include "userspace/record/output/event_threads.h"
#include "userspace/record/output/stack_resolver.h"

namespace jfrbpf::record {

class AgentEventWriter {
 public:
  // What was written of one kind: events, and what they stand for (bytes, or nanoseconds of waiting).
  struct Written {
    uint64_t events = 0;
    uint64_t amount = 0;
  };

  AgentEventWriter(jfr::Recording& out, EventThreads& threads);

  // The classes of JVM `pid` come from `model` (alive as long as this writer).
  void addJvm(pid_t pid, const jvm::JavaModel& model) { jvms_.push_back({pid, &model}); }
  // Whether a record of the traces ring buffer is one of this writer's.
  static bool takes(uint32_t hookIndex) { return (hookIndex & (JFRBPF_HOOK_ALLOCATION | JFRBPF_HOOK_LOCK)) != 0; }
  void onRecord(const void* data, size_t size);
  // Retries what waited, after the agents' latest records were read; with `final`, writes them all.
  void retryPending(bool final = false);
  // What JVM `pid`'s records that wait hold.
  size_t pendingBytesOf(pid_t pid) const { return pending_.bytesOf(pid); }

  const Written& allocations() const { return allocations_; }
  const Written& monitorEnters() const { return monitorEnters_; }
  const Written& monitorWaits() const { return monitorWaits_; }
  const Written& parks() const { return parks_; }
  uint64_t malformed() const { return malformed_; }

 private:
  struct Jvm {
    pid_t pid;
    const jvm::JavaModel* model;
  };
  enum class Outcome { kWritten, kMalformed, kRetry };
  Outcome write(const void* data, size_t size, bool lastChance);
  const jvm::JavaModel* modelOf(pid_t pid) const;

  jfr::Recording& out_;
  EventThreads& threads_;
  std::vector<Jvm> jvms_;
  jvm::MetadataWait pending_;
  std::unique_ptr<jfrbpf_sample_record> record_;  // the record being written, aligned
  Written allocations_, monitorEnters_, monitorWaits_, parks_;
  uint64_t malformed_ = 0;
};

}  // namespace jfrbpf::record
