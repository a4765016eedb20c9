#include "userspace/record/host_recorder.h"

#include <optional>

#include "userspace/discovery/jvm_watcher.h"
#include "userspace/record/files/output_directory.h"
#include "userspace/record/session/host_targets.h"
#include "userspace/record/session/privileges.h"
#include "userspace/record/session/recording_session.h"
#include "userspace/record/session/stop_conditions.h"

namespace jfrbpf::record {

RecordSummary recordHost(const RecordConfig& config) {
  requireProfilingPrivileges();
  raiseOpenFileLimit();
  prepareOutputDirectory(config.outputPath, "--all", config.outputOwner);
  BlockedStopSignals signals;
  RecordingSession session(config, config.outputPath, HostTargets::kTimedJvmsAtOnce);
  RecordSummary summary;
  summary.outputPath = config.outputPath;
  HostTargets targets(session, summary);
  discovery::JvmWatcher watcher;
  int64_t startNs = jfr::Recording::now();
  try {
    session.startSampling();
    targets.start(watcher.poll().appeared);
    std::optional<StopReason> reason = targets.beginStartJvms(signals);
    // The duration counts from when the JVMs found at the start are being recorded (or still attaching).
    startNs = jfr::Recording::now();
    StopConditions stop(signals, config.durationNs > 0 ? startNs + config.durationNs : 0);
    session.startConsumer();
    if (!reason) {
      reason = session.run(
          stop, "every JVM", startNs, [&] { targets.turn(watcher.poll()); },
          [&] { return targets.recordingOutputs(); });
    }
    summary.stopReason = *reason;
  } catch (...) {
    session.abandon();
    targets.abandonAll();
    throw;
  }
  session.endSampling();
  targets.finishAll();
  session.endRecording(summary, startNs);
  targets.endAttaches();
  return summary;
}

}  // namespace jfrbpf::record
