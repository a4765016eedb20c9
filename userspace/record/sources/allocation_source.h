#pragma once
// --alloc: jdk.ObjectAllocationSample events from each JVM's own heap sampler (jvmsupport/agent/
// allocation_sampler.h), through the trace probe's ring, each weighted by what its thread allocated since
// its previous sample.
#include <memory>
#include <string>

#include "userspace/record/config.h"
#include "userspace/record/sources/event_source.h"

namespace jfrbpf::record {

class AllocationReport : public SourceReport {
 public:
  uint64_t samples = 0;
  uint64_t bytes = 0;  // their weights, summed
  std::string line(const RecordSummary& whole) const override;
};

std::unique_ptr<EventSource> allocationSource(const AllocationOptions& options);

}  // namespace jfrbpf::record
