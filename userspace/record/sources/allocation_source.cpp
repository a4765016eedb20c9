#include "userspace/record/sources/allocation_source.h"

#include "base/number_text.h"
#include "userspace/record/sources/agent_event_source.h"

namespace jfrbpf::record {
namespace {

class AllocationSource final : public AgentEventSource {
 public:
  explicit AllocationSource(const AllocationOptions& options)
      : AgentEventSource(JFRBPF_HOOK_ALLOCATION, "allocation samples"), options_(options) {}

  void addSettings(std::vector<jfr::Setting>& settings) const override {
    // JFR's throttle is a rate; a fixed interval has none (a note in the file gives the interval).
    settings.push_back({"jdk.ObjectAllocationSample", "enabled", "true"});
    settings.push_back({"jdk.ObjectAllocationSample", "throttle",
                        options_.intervalBytes > 0 ? "off" : std::to_string(options_.samplesPerSecond) + "/s"});
  }

  std::shared_ptr<const SourceReport> report() const override {
    auto report = std::make_shared<AllocationReport>();
    report->samples = counts().allocations.events;
    report->bytes = counts().allocations.amount;
    return report;
  }

 private:
  std::optional<std::string> start(JvmConnection& jvm, JvmKernelSide& kernel) override {
    jvm.startAllocations(kernel, options_.intervalBytes, options_.samplesPerSecond, kAgentRequestTimeout);
    const std::optional<jvm::JavaModel::AllocationStatusInfo>& status = jvm.model().allocationStatus();
    if (!status || status->weightFromCounters) return std::nullopt;
    return "its threads' allocation counters are not in VMStructs: each allocation sample weighs the sampling "
           "interval, as in JFR";
  }

  AllocationOptions options_;
};

}  // namespace

std::string AllocationReport::line(const RecordSummary& whole) const {
  if (samples == 0) return "";
  std::string text = "alloc    " + groupThousands(samples) + " samples (" + mebibytes(bytes) + " allocated)";
  // Allocation samples share the probe's ring with method traces and lock waits.
  const uint64_t lost = whole.traceCounters[JFRBPF_TIMER_TRACES_LOST_RINGBUF_FULL] +
                        whole.traceCounters[JFRBPF_TIMER_TRACES_LOST_BUSY];
  if (lost > 0) text += ", " + groupThousands(lost) + " records of the probe lost";
  return text;
}

std::unique_ptr<EventSource> allocationSource(const AllocationOptions& options) {
  return std::make_unique<AllocationSource>(options);
}

}  // namespace jfrbpf::record
