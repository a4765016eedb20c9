#pragma once
// Who a record of one output is written as, in every event made of it (CPU and off-CPU samples, method
// traces, the agents' allocation and lock events): the thread the event names, a virtual thread's own when
// one was mounted on the carrier it ran on (named as the JVM names it), else its OS thread with the Java
// identity its agent gave; and the stack as that thread's, a virtual thread's stopping at its continuation's
// entry. The writers ask it directly.
#include <cstdint>

#include "bpf/sampler_abi.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/record/jvm/target_jvms.h"
#include "userspace/record/jvm/thread_registry.h"
#include "userspace/record/jvm/virtual_thread_names.h"
#include "userspace/record/output/stack_resolver.h"

namespace jfrbpf::record {

class EventThreads {
 public:
  EventThreads(jfr::Recording& out, ThreadRegistry& threads, TargetJvms& jvms, StackResolver& stacks)
      : out_(out), threads_(threads), jvms_(jvms), stacks_(stacks) {}

  jfr::EventThread of(const jfrbpf_sample_record& record);
  // The OS thread that took the record (a virtual thread's carrier): whose CPU time it stands for.
  jfr::ThreadId osThreadOf(const jfrbpf_sample_record& record);
  // `stack`, resolved from `record`, as its event's thread's.
  ResolvedStack ownStack(const jfrbpf_sample_record& record, const ResolvedStack& stack);
  // The record's stack resolved from `start`, as its event's thread's.
  ResolvedStack stackOf(const jfrbpf_sample_record& record, StackStart start = StackStart::kLeaf) {
    return ownStack(record, stacks_.resolve(record, start));
  }
  // What remembering which virtual threads were named holds.
  size_t memoryBytes() const { return virtualThreadNames_.memoryBytes(); }

 private:
  // The Java id of the virtual thread a sample ran in (taken inside its continuation on a carrier); 0 when it
  // ran in its OS thread's own Java thread, or its JVM's threads are not known.
  int64_t virtualThreadOf(const jfrbpf_sample_record& record) const;

  jfr::Recording& out_;
  ThreadRegistry& threads_;
  TargetJvms& jvms_;
  StackResolver& stacks_;
  VirtualThreadNames virtualThreadNames_;
};

}  // namespace jfrbpf::record
