#pragma once
// Turns the agents' allocation samples (trace records with JFRBPF_HOOK_ALLOCATION: the object's class id, the
// sample's weight in bytes) into jdk.ObjectAllocationSample events: the class, the weight, the allocating
// thread and its stack from the allocation site down. A sample whose class or code the agent has not
// described yet waits for its records (jvm::MetadataWait), then is written as well as it can be.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "bpf/method_timer_abi.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/jvm/java_model.h"
#include "userspace/jvm/metadata_wait.h"
#include "userspace/record/stack_resolver.h"

namespace jfrbpf::record {

class AllocationWriter {
 public:
  using Resolve = std::function<ResolvedStack(const jfrbpf_sample_record&)>;
  using ThreadOf = std::function<jfr::ThreadId(const jfrbpf_sample_record&)>;

  AllocationWriter(jfr::Recording& out, Resolve resolve, ThreadOf threadOf);

  // The classes of JVM `pid` come from `model` (alive as long as this writer).
  void addJvm(pid_t pid, const jvm::JavaModel& model) { jvms_.push_back({pid, &model}); }
  // One record of the traces ring buffer whose hook index has JFRBPF_HOOK_ALLOCATION.
  void onRecord(const void* data, size_t size);
  // Retries what waited, after the agents' latest records were read; with `final`, writes them all.
  void retryPending(bool final = false);

  uint64_t written() const { return written_; }
  uint64_t bytes() const { return bytes_; }
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
  Resolve resolve_;
  ThreadOf threadOf_;
  std::vector<Jvm> jvms_;
  jvm::MetadataWait pending_;
  std::unique_ptr<jfrbpf_sample_record> record_;  // the record being written, aligned
  uint64_t written_ = 0;
  uint64_t bytes_ = 0;
  uint64_t malformed_ = 0;
};

}  // namespace jfrbpf::record
