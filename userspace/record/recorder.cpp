#include "userspace/record/recorder.h"

#include "userspace/record/session/privileges.h"
#include "userspace/record/session/process_targets.h"
#include "userspace/record/session/recording_session.h"
#include "userspace/record/session/stop_conditions.h"

namespace jfrbpf::record {

RecordSummary recordProcesses(const RecordConfig& config) {
  requireProfilingPrivileges();
  const rlimit openFiles = raiseOpenFileLimit();
  ProcessTargets targets(config);
  BlockedStopSignals signals;  // before any thread or child exists, so all inherit the mask
  RecordingSession session(config, targets.outputDirectory(), targets.jvmsAtOnce(), config.pids);
  targets.connect(session);
  targets.launch(openFiles);
  const int64_t startNs = jfr::Recording::now();
  StopConditions stop(signals, config.durationNs > 0 ? startNs + config.durationNs : 0);
  targets.open(session, stop);
  RecordSummary summary;
  try {
    targets.begin(session, signals);
    summary.stopReason = session.run(
        stop, targets.describe(), startNs, [&] { targets.turn(session, stop); }, [&] { return targets.outputs(); });
    targets.end(session, stop);
  } catch (...) {
    session.abandon();
    targets.abandon();
    throw;
  }
  session.endSampling();
  targets.finish();
  targets.addTo(summary, session);  // before the session's counts: its JVMs end in the sources' reports
  session.endRecording(summary, startNs);
  return summary;
}

}  // namespace jfrbpf::record
