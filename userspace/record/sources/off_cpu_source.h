#pragma once
// --off-cpu: where threads wait. jfrbpf.OffCPUSample events from two places: the scheduler hooks' records
// (bpf/off_cpu.bpf.h), which come through the sampler's ring as sample records flagged
// JFRBPF_SAMPLE_OFF_CPU, and the waits of virtual threads, which no OS thread sleeps for: the agents' hooks
// time them (jvm/jvm_setup.h's Instrumentation) and send them with their other records.
#include <memory>
#include <string>

#include "userspace/record/config.h"
#include "userspace/record/sources/event_source.h"

namespace jfrbpf::record {

class OffCpuReport : public SourceReport {
 public:
  uint64_t samples = 0;
  uint64_t ns = 0;             // the off-CPU time they stand for
  uint64_t virtualWaits = 0;   // of those, waits of virtual threads (unmounted: no OS thread slept)
  uint64_t virtualWaitNs = 0;
  std::string line(const RecordSummary& whole) const override;
};

std::unique_ptr<EventSource> offCpuSource(const OffCpuOptions& options);

}  // namespace jfrbpf::record
