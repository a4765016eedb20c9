#pragma once
// One kind of event a recording writes beyond its CPU samples (off-CPU waits, allocation samples, lock
// waits, method timing and traces), in a unit of its own, as async-profiler's engines are: what it asks of
// the kernel side and of each JVM's agent, the JFR settings of its events, the writer that turns its records
// into events in each output, and what it tells in the summary. The session runs every source the same way
// (registry.h says which run); a source knows nothing of the others or of the session.
#include <memory>
#include <string>
#include <vector>

#include "formats/jfr/writer/recording.h"
#include "userspace/record/jvm/jvm_connection.h"
#include "userspace/record/jvm/jvm_setup.h"
#include "userspace/record/output/source_writer.h"
#include "userspace/record/sampling/bpf_sampler.h"
#include "userspace/record/sampling/jvm_kernel_side.h"
#include "userspace/record/summary.h"

namespace jfrbpf::record {

class EventSource {
 public:
  virtual ~EventSource() = default;

  // The jdk.ActiveSetting values of its events, in every file.
  virtual void addSettings(std::vector<jfr::Setting>& settings) const = 0;
  // What it needs loaded in the kernel.
  virtual void configureKernel(SamplerConfig& /*sampler*/) const {}

  // Whether it asks the JVMs' agents for anything (the session then waits for their hook sites).
  virtual bool asksAgents() const = 0;
  // What it asks `jvm`'s agent to hook into its code; all sources' asks go in one request per JVM.
  virtual void addInstrumentation(const JvmConnection& /*jvm*/, Instrumentation& /*request*/) const {}
  // Once `jvm` is a target, instrumented: what else its agent starts for this source (a note says when it
  // cannot; the recording goes on without it there).
  virtual void startInJvm(JvmConnection& /*jvm*/, JvmKernelSide& /*kernel*/, std::vector<std::string>& /*notes*/) {}
  // `jvm`'s part of the recording is over (its file finished, or the recording's): what the source counts
  // of its JVMs.
  virtual void jvmEnded(const JvmConnection& /*jvm*/) {}

  // Its writer into one output, or null when it writes nothing there. Writers count into the source's
  // report, on the consumer thread.
  virtual std::unique_ptr<SourceWriter> writerFor(const OutputParts& output) = 0;
  // What it did over the recording, once sampling has ended and the consumer drained.
  virtual std::shared_ptr<const SourceReport> report() const = 0;
};

}  // namespace jfrbpf::record
