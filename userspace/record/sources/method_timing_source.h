#pragma once
// --method-timing and --method-trace (JEP 520): the methods the filters select, instrumented by each JVM's
// agent (jvm/jvm_setup.h's Instrumentation). jdk.MethodTiming from the agents' statistics tables, once a
// --timing-period and at the end of every file; jdk.MethodTrace from the trace probe's records, one per traced
// call at or over the threshold (timing::MethodTimingWriter writes both).
#include <memory>
#include <string>

#include "bpf/method_timer_abi.h"
#include "jvmsupport/protocol/timing_table.h"
#include "userspace/record/sources/event_source.h"
#include "userspace/timing/method_timing_options.h"

namespace jfrbpf::record {

class MethodTimingReport : public SourceReport {
 public:
  size_t timedJvms = 0;              // JVMs whose methods were instrumented
  size_t timedMethods = 0;           // jdk.MethodTiming events in each output's last batch, summed
  uint64_t timedInvocations = 0;     // the invocations they count
  uint64_t tracesWritten = 0;        // jdk.MethodTrace events
  uint64_t tracesUnknown = 0;        // trace records no timed method could be found for
  protocol::TimingCounters stubCounters;  // the agents' timing tables', summed over JVMs
  std::string line(const RecordSummary& whole) const override;
};

std::unique_ptr<EventSource> methodTimingSource(const timing::MethodTimingOptions& options);

}  // namespace jfrbpf::record
