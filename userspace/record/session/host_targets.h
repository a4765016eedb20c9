#pragma once
// The targets of `jfrbpf record --all`: every HotSpot JVM on the host, each into a file of its own in the
// output directory, found as it starts and finished as it exits. A JVM is recorded at once, with native
// frames until its agent attaches (a JVM found while it starts takes the agent only once it can); a host
// recording runs for days while JVMs come and go, so a JVM's file, once finished, leaves only its line in the
// summary.
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/jfr/writer/types.h"
#include "userspace/discovery/jvm_watcher.h"
#include "userspace/record/config.h"
#include "userspace/record/jvm/jvm_attachment.h"
#include "userspace/record/jvm/jvm_connection.h"
#include "userspace/record/output/stack_end.h"
#include "userspace/record/output/target_output.h"
#include "userspace/record/session/recording_session.h"
#include "userspace/record/session/stop_conditions.h"
#include "userspace/record/summary.h"

namespace jfrbpf::record {

// One JVM of the host, from when it is found until its file is finished.
struct HostJvm {
  pid_t pid = 0;
  std::string prefix;  // of its file name
  std::string path;    // its file; with --rotate, its first
  std::string mainClass;
  jfr::JvmInformation information;            // as its files describe it
  jfr::ProcessResource resource;
  std::unique_ptr<JvmAttachment> attachment;  // until its attach ended
  std::unique_ptr<JvmConnection> jvm;         // null until (unless) its agent attached
  std::unique_ptr<TargetOutput> output;       // null until its recording began
  std::optional<uint32_t> slotBase;
  std::atomic<bool> finished{false};
  std::string failure;  // why its file could not be finished whole (set before `finished`)
};

class HostTargets {
 public:
  // `summary` gets a line for each JVM as its file is finished.
  HostTargets(RecordingSession& session, RecordSummary& summary)
      : config_(session.config()), session_(session), summary_(summary) {}

  // How many JVMs may have methods timed at once: each has a range of the statistics slots, which serves the
  // next JVM once its file is finished.
  static constexpr size_t kTimedJvmsAtOnce = 64;

  // Starts attaching to each of `pids` that is a JVM we should record into its own file. Once the JVMs
  // found at the start had their turn (beginAll), a JVM's recording begins at once, with native frames
  // until its agent attaches: a JVM found while it starts takes the agent only once it can.
  void start(const std::vector<pid_t>& pids);

  // Takes the outcome of every attach that ended: a JVM not recorded yet begins with it, a JVM being
  // recorded gets its Java frames from now on. Returns whether a JVM found at the start is still waiting.
  bool takeAttached();

  // Begins the JVMs found at the start as their attaches end, for a while, then the others, with native
  // frames until their agents attach; from here on every JVM begins as soon as it is found. Returns why to
  // stop if a signal came meanwhile.
  std::optional<StopReason> beginStartJvms(const BlockedStopSignals& signals);
  // A turn of the main loop: JVMs gone and appeared (`changes`), attaches that ended, files finished.
  void turn(const discovery::JvmChanges& changes);

  // At the end: the attaches still going on are given up (each waits for an attempt under way).
  void endAttaches();

  // The JVM exited: its file is finished on the consumer thread once the rings hold nothing more of it.
  void retire(pid_t pid);

  // JVMs whose files are finished leave nothing behind but their lines in the summary: a host recording
  // runs for days while JVMs come and go.
  void releaseFinished();

  // The outputs of the JVMs being recorded now.
  std::vector<TargetOutput*> recordingOutputs() const;

  // After the pipeline finished: every file not finished yet is finished now.
  void finishAll();

  void abandonAll();


 private:
  // The JVMs found at the start whose agents have not attached yet begin now, with native frames until
  // they do; from here on every JVM begins as soon as it is found.
  void beginAll();
  // What an attach still going on wants the user to know: on the terminal, and in the file once it exists.
  void passOnNotes(HostJvm& host);

  void account(const HostJvm& host);

  std::vector<HostJvm*> all() const;

  // `wanted`, or with "-2", "-3"... before ".jfr" when a file or another JVM of this recording has it.
  std::string unusedPath(const std::filesystem::path& wanted);

  // Its file opened and its samples taken from now on; with Java frames if its agent is attached, else with
  // its short stacks marked `withoutAgent` (kRoot: not at all, it is no JVM).
  void begin(HostJvm& host, std::vector<std::string> notes = {}, StackEnd withoutAgent = StackEnd::kJavaFramesPending);

  const RecordConfig& config_;
  RecordingSession& session_;
  RecordSummary& summary_;  // of the JVMs finished so far
  bool beganAll_ = false;
  std::map<pid_t, std::unique_ptr<HostJvm>> jvms_;  // alive: attaching, recording, or both
  std::vector<std::string> failures_;  // of JVMs whose files could not be finished whole, said at the end
  std::vector<std::unique_ptr<HostJvm>> exited_;    // finished, or being finished on the consumer thread

};

}  // namespace jfrbpf::record
