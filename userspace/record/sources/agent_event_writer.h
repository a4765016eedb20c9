#pragma once
// Turns the agents' own events into JFR events, for the allocation and lock sources: trace records whose
// hook index has JFRBPF_HOOK_ALLOCATION (an allocation sample: the object's class id, its weight in bytes)
// or JFRBPF_HOOK_LOCK (a wait for a monitor or a park: its class id, start, duration, timeout and the
// object's address); each source's writer takes the kinds it asked for. Each record becomes
// jdk.ObjectAllocationSample, jdk.JavaMonitorEnter, jdk.JavaMonitorWait or jdk.ThreadPark with the thread
// and its stack from the event's Java site down (the agent's callback and the JVM's frames above it left
// out). An event whose class or code the agent has not described yet waits for its records
// (jvm::MetadataWait), then is written as well as it can be.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "bpf/method_timer_abi.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/jvm/java_model.h"
#include "userspace/jvm/metadata_wait.h"
#include "userspace/record/output/source_writer.h"

namespace jfrbpf::record {

// What was written of one kind: events, and what they stand for (bytes, or nanoseconds of waiting).
struct AgentEventsWritten {
  uint64_t events = 0;
  uint64_t amount = 0;
};

// What the writers of one source wrote, over all outputs.
struct AgentEventCounts {
  AgentEventsWritten allocations, monitorEnters, monitorWaits, parks;
  uint64_t malformed = 0;  // records too short for what they said they hold
};

class AgentEventWriter : public SourceWriter {
 public:
  // Takes the trace records whose hook index has any bit of `hooks`; counts into `counts`.
  AgentEventWriter(const OutputParts& output, uint32_t hooks, AgentEventCounts& counts);

  // The classes of JVM `pid` come from `model` (alive as long as this writer).
  void addJvm(pid_t pid, const jvm::JavaModel& model) override { jvms_.push_back({pid, &model}); }
  bool takesTrace(uint32_t hookIndex) const override { return (hookIndex & hooks_) != 0; }
  void onTrace(const void* data, size_t size) override;
  // What waited is retried after the agents' latest records were read, and written in the end.
  void afterTraces() override { retryPending(/*final=*/false); }
  void drain(bool /*final*/) override { retryPending(/*final=*/true); }
  size_t pendingBytesOf(pid_t pid) const override { return pending_.bytesOf(pid); }

 private:
  struct Jvm {
    pid_t pid;
    const jvm::JavaModel* model;
  };
  enum class Outcome { kWritten, kMalformed, kRetry };
  Outcome write(const void* data, size_t size, bool lastChance);
  void retryPending(bool final);
  const jvm::JavaModel* modelOf(pid_t pid) const;

  jfr::Recording& out_;
  EventThreads& threads_;
  ThreadContexts& contexts_;
  uint32_t hooks_;
  AgentEventCounts& counts_;
  std::vector<Jvm> jvms_;
  jvm::MetadataWait pending_;
  std::unique_ptr<jfrbpf_sample_record> record_;  // the record being written, aligned
};

}  // namespace jfrbpf::record
