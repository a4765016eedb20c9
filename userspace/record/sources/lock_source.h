#pragma once
// --lock: jdk.JavaMonitorEnter, jdk.JavaMonitorWait and jdk.ThreadPark events for waits of at least the
// threshold, from each JVM's agent (jvmsupport/agent/lock_profiler.h) through the trace probe's ring.
#include <memory>
#include <string>

#include "userspace/record/config.h"
#include "userspace/record/sources/agent_event_writer.h"
#include "userspace/record/sources/event_source.h"

namespace jfrbpf::record {

class LockReport : public SourceReport {
 public:
  AgentEventsWritten monitorEnters, monitorWaits, parks;  // each: events, and the nanoseconds they waited
  std::string line(const RecordSummary& whole) const override;
};

std::unique_ptr<EventSource> lockSource(const LockOptions& options);

}  // namespace jfrbpf::record
