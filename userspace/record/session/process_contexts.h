#pragma once
// The OpenTelemetry process contexts (OTEP 4719, userspace/otel/process_context.h) of a recording's targets:
// read when a process becomes a target and again whenever it publishes another, each written into its
// target's output as jfrbpf.ProcessContext (the first of each target is said on the terminal too). A target
// that publishes none yet is looked at again now and then (its SDK may start after it); one whose context
// cannot be read is said once, in its file. Once a context says the threads publish theirs (OTEP 4947), where
// they keep it goes to the sampler, whose records carry each thread's from then on; a variable the dynamic
// linker has not resolved yet (a lazy TLSDESC) is looked for again until it is.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "userspace/otel/process_context.h"
#include "userspace/record/output/target_output.h"
#include "userspace/record/sampling/bpf_sampler.h"
#include "userspace/record/session/sample_pipeline.h"

namespace jfrbpf::record {

// The context process `pid` publishes now; nullopt when it publishes none. Throws jfrbpf::Error when it
// publishes one that cannot be read.
std::optional<otel::ProcessContext> readProcessContextOf(pid_t pid);

class ProcessContexts {
 public:
  // `tell` says a line on the terminal.
  ProcessContexts(SamplePipeline& pipeline, BpfSampler& sampler, std::function<void(std::string)> tell)
      : pipeline_(pipeline), sampler_(sampler), tell_(std::move(tell)) {}

  // `pid` is a target of `output` from now on: its context, if any, goes into the output.
  void add(pid_t pid, TargetOutput& output);
  void remove(pid_t pid);
  // Once a turn of the main loop: the contexts published since.
  void poll();

 private:
  struct Target {
    TargetOutput* output;
    std::optional<uint64_t> header;  // the context's address, once found
    uint64_t publishedAtNs = 0;      // of the one written last
    std::chrono::steady_clock::time_point nextLook;
    std::chrono::steady_clock::time_point nextLocate;
    std::chrono::seconds locateWait{0};  // until nextLocate
    bool failureSaid = false;
    bool threadsPending = false;     // its threads publish contexts, not located yet
  };
  // Whether `target` may have published a context since it was last looked at.
  bool published(pid_t pid, Target& target, std::chrono::steady_clock::time_point now);
  void look(pid_t pid, Target& target);
  // Where `pid`'s threads keep their contexts, for the file; the sampler is told when it is found.
  std::string locateThreads(pid_t pid, Target& target);

  SamplePipeline& pipeline_;
  BpfSampler& sampler_;
  std::function<void(std::string)> tell_;
  std::mutex mutex_;
  std::map<pid_t, Target> targets_;
};

}  // namespace jfrbpf::record
