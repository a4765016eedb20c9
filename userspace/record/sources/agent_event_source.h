#pragma once
// What the sources of the JVMs' own events (allocation_source, lock_source) share: each asks every JVM's
// agent to start something, and the records come back from the agents through the trace probe's ring, where
// an AgentEventWriter in each output writes the kinds the source asked for and counts them.
#include <memory>
#include <optional>
#include <string>

#include "userspace/record/sources/agent_event_writer.h"
#include "userspace/record/sources/event_source.h"

namespace jfrbpf::record {

class AgentEventSource : public EventSource {
 public:
  // The source of the trace records whose hook index has any bit of `hooks`, which are `what` ("allocation
  // samples"), for notes.
  AgentEventSource(uint32_t hooks, const char* what) : hooks_(hooks), what_(what) {}

  void configureKernel(SamplerConfig& sampler) const override { sampler.methodTraces = true; }
  bool asksAgents() const override { return true; }
  // start(), and a note when it failed (the recording goes on without the source there) or has a caveat.
  void startInJvm(JvmConnection& jvm, JvmKernelSide& kernel, std::vector<std::string>& notes) override;
  std::unique_ptr<SourceWriter> writerFor(const OutputParts& output) override {
    return std::make_unique<AgentEventWriter>(output, hooks_, counts_);
  }

 protected:
  // Asks `jvm`'s agent to start sending the source's events; returns what the user should know of how it
  // records them there, if anything. Throws jfrbpf::Error when it cannot.
  virtual std::optional<std::string> start(JvmConnection& jvm, JvmKernelSide& kernel) = 0;
  const AgentEventCounts& counts() const { return counts_; }

 private:
  uint32_t hooks_;
  const char* what_;
  AgentEventCounts counts_;
};

}  // namespace jfrbpf::record
