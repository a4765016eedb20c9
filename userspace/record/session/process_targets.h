#pragma once
// The targets of `jfrbpf record -p PID...` and of launch mode, recorded into one output (one file, or
// --rotate's series): the processes the user named, pinned from the start, their agents attaching (those
// that could not at the start take it as soon as they can), and the command launched, a JVM held in its
// VMInit until the recording has its agent. Each target exits on its own; the recording ends when all did.
#include <sys/resource.h>
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "userspace/record/config.h"
#include "userspace/record/jvm/jvm_attachment.h"
#include "userspace/record/jvm/jvm_connection.h"
#include "userspace/record/output/target_output.h"
#include "userspace/record/session/launcher.h"
#include "userspace/record/session/recording_session.h"
#include "userspace/record/session/stop_conditions.h"
#include "userspace/record/summary.h"

namespace jfrbpf::record {

class ProcessTargets {
 public:
  // Pins config.pids: before anything is done by pid, so that a target that exits meanwhile is never
  // confused with a process that gets its pid after it.
  explicit ProcessTargets(const RecordConfig& config);

  // How many of the targets may be JVMs whose methods are timed.
  size_t jvmsAtOnce() const;
  // Where the output goes: the directory of the file, or --rotate's directory.
  std::string outputDirectory() const;

  // The named targets' agents, which `session` began to attach, waited for a while; their JVMs published.
  void connect(RecordingSession& session);
  // The command launched, gated: it runs nothing of its own yet.
  void launch(const rlimit& openFiles);
  // `stop` watches every target, and the output is opened.
  void open(RecordingSession& session, StopConditions& stop);
  // Every target sampled from now on, the JVMs asked for what the recording needs, the launched command
  // released, the consumer started, and the launched JVM's agent taken.
  void begin(RecordingSession& session, const BlockedStopSignals& signals);
  // A turn of the main loop: targets that exited let go; JVMs whose agents attached late get Java frames.
  void turn(RecordingSession& session, StopConditions& stop);
  // After the main loop: the last exits, and the attaches that never ended given up.
  void end(RecordingSession& session, StopConditions& stop);
  // Once the session stopped sampling: the file finished.
  void finish();
  void abandon();
  // What the targets did, into `summary` (the session's own counts are added by the session).
  void addTo(RecordSummary& summary, RecordingSession& session);

  // "pid 123", "pids 1,2", or the launched command.
  std::string describe() const;
  std::vector<TargetOutput*> outputs() const { return {output_.get()}; }

 private:
  void retireExited(RecordingSession& session, StopConditions& stop, bool othersGoOn);
  void joinAttached(RecordingSession& session);

  const RecordConfig& config_;
  const bool launchesJava_;
  std::vector<UniqueFd> pinned_;
  std::vector<std::unique_ptr<JvmAttachment>> attaching_;
  std::vector<std::unique_ptr<JvmConnection>> jvms_;
  std::vector<pid_t> refusedJvms_;
  std::vector<std::string> notes_;  // for the file, once it is open
  std::unique_ptr<LaunchedProcess> launched_;
  std::unique_ptr<JvmConnection> launchedJvm_;
  std::unique_ptr<TargetOutput> output_;
};

}  // namespace jfrbpf::record
