#include "userspace/record/sources/lock_source.h"

#include <cstdio>

#include "base/number_text.h"
#include "formats/jfr/writer/durations.h"
#include "userspace/record/sources/agent_event_source.h"

namespace jfrbpf::record {
namespace {

class LockSource final : public AgentEventSource {
 public:
  explicit LockSource(const LockOptions& options) : AgentEventSource(JFRBPF_HOOK_LOCK, "lock events"), options_(options) {}

  void addSettings(std::vector<jfr::Setting>& settings) const override {
    for (const char* event : {"jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.ThreadPark"}) {
      settings.push_back({event, "enabled", "true"});
      settings.push_back({event, "threshold", jfr::formatDuration(options_.thresholdNs)});
      settings.push_back({event, "stackTrace", "true"});
    }
  }

  std::shared_ptr<const SourceReport> report() const override {
    auto report = std::make_shared<LockReport>();
    report->monitorEnters = counts().monitorEnters;
    report->monitorWaits = counts().monitorWaits;
    report->parks = counts().parks;
    return report;
  }

 private:
  std::optional<std::string> start(JvmConnection& jvm, JvmKernelSide& kernel) override {
    jvm.startLocks(kernel, static_cast<uint64_t>(options_.thresholdNs), kAgentRequestTimeout);
    const std::optional<jvm::JavaModel::LockStatusInfo>& status = jvm.model().lockStatus();
    if (!status || status->parks) return std::nullopt;
    return "parks are not recorded (" + status->message + "): monitors only";
  }

  LockOptions options_;
};

}  // namespace

std::string LockReport::line(const RecordSummary&) const {
  if (monitorEnters.events == 0 && monitorWaits.events == 0 && parks.events == 0) return "";
  char text[256];
  std::snprintf(text, sizeof text, "locks    %s blocked (%.2f s), %s waits (%.2f s), %s parks (%.2f s)",
                groupThousands(monitorEnters.events).c_str(), static_cast<double>(monitorEnters.amount) / 1e9,
                groupThousands(monitorWaits.events).c_str(), static_cast<double>(monitorWaits.amount) / 1e9,
                groupThousands(parks.events).c_str(), static_cast<double>(parks.amount) / 1e9);
  return text;
}

std::unique_ptr<EventSource> lockSource(const LockOptions& options) { return std::make_unique<LockSource>(options); }

}  // namespace jfrbpf::record
