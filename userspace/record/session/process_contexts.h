#pragma once
// The OpenTelemetry process contexts (OTEP 4719, userspace/otel/process_context.h) of a recording's targets:
// read when a process becomes a target and again whenever it publishes another, each written into its
// target's output as jfrbpf.ProcessContext (the first of each target is said on the terminal too). A target
// that publishes none yet is looked at again now and then (its SDK may start after it); one whose context
// cannot be read is said once, in its file.
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
#include "userspace/record/session/sample_pipeline.h"

namespace jfrbpf::record {

// The context process `pid` publishes now; nullopt when it publishes none. Throws jfrbpf::Error when it
// publishes one that cannot be read.
std::optional<otel::ProcessContext> readProcessContextOf(pid_t pid);

class ProcessContexts {
 public:
  // `tell` says a line on the terminal.
  ProcessContexts(SamplePipeline& pipeline, std::function<void(std::string)> tell)
      : pipeline_(pipeline), tell_(std::move(tell)) {}

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
    bool failureSaid = false;
  };
  void look(pid_t pid, Target& target);

  SamplePipeline& pipeline_;
  std::function<void(std::string)> tell_;
  std::mutex mutex_;
  std::map<pid_t, Target> targets_;
};

}  // namespace jfrbpf::record
