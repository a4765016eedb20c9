#include "userspace/record/recorder.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <future>
#include <optional>

#include "base/error.h"
#include "base/startup_marks.h"
#include "userspace/discovery/discovery.h"
#include "userspace/proc/comm.h"
#include "userspace/record/jvm/jvm_attachment.h"
#include "userspace/record/jvm/jvm_connection.h"
#include "userspace/record/jvm/jvm_setup.h"
#include "userspace/record/output/target_output.h"
#include "userspace/record/session/launcher.h"
#include "userspace/record/session/memory_budget.h"
#include "userspace/record/session/privileges.h"
#include "userspace/record/session/recording_session.h"
#include "userspace/record/session/stop_conditions.h"

namespace jfrbpf::record {
namespace {

// How long the recording waits for the agents of its JVMs before it starts: a JVM that cannot take the
// agent by then (still starting, or not answering) is sampled with native frames until it can.
constexpr auto kStartAttachWait = std::chrono::seconds(10);

std::string describeTargets(const RecordConfig& config, pid_t launched) {
  if (launched > 0) return config.command.front() + " (pid " + std::to_string(launched) + ")";
  std::string text = config.pids.size() == 1 ? "pid " : "pids ";
  for (size_t i = 0; i < config.pids.size(); ++i) text += (i ? "," : "") + std::to_string(config.pids[i]);
  return text;
}

// With --rotate, the files of `pid` are named after it: what runs in it, and its container.
std::string filePrefixOf(const RecordConfig& config, pid_t pid) {
  if (std::optional<discovery::JvmInfo> jvm = discovery::inspectJvm(pid)) return jvmFilePrefix(*jvm);
  std::string what = config.command.empty() ? proc::readThreadComm(pid, pid) : config.command.front();
  return processFilePrefix(pid, what, "");
}

}  // namespace

RecordSummary recordProcesses(const RecordConfig& config) {
  requireProfilingPrivileges();
  const rlimit openFiles = raiseOpenFileLimit();
  // Before anything is done by pid: a target that exits meanwhile is never confused with a process that
  // gets its pid after it.
  std::vector<UniqueFd> pinned;
  for (pid_t pid : config.pids) pinned.push_back(pinProcess(pid));
  BlockedStopSignals signals;  // before any thread or child exists, so all inherit the mask

  const bool timing = config.methodTiming.enabled();
  // What the recording asks of the JVMs' agents once sampling runs: with --off-cpu, the waits of virtual threads.
  const bool asksAgents = timing || config.offCpu || config.agentEvents();
  const bool launchesJava = !config.command.empty() && isJavaLauncher(config.command.front());
  // The agents attach while the session loads and verifies its BPF programs: the two take about as long.
  AttachPermits permits{kConcurrentAttaches};
  std::vector<std::unique_ptr<JvmAttachment>> attaching;
  for (pid_t pid : config.pids) {
    attaching.push_back(std::make_unique<JvmAttachment>(pid, permits, sessionLimitsOf(config.memoryLimitBytes)));
  }
  RecordingSession session(config,
                           config.rotation.enabled()
                               ? config.outputPath
                               : std::filesystem::absolute(config.outputPath).parent_path().string(),
                           config.pids.size() + (launchesJava ? 1 : 0));

  // Java frames need the JVM's tables in BPF before its first sample: wait for the agents before targeting
  // the JVMs, for a while. A JVM still starting then is recorded with native frames until it takes the agent.
  const auto attachDeadline = std::chrono::steady_clock::now() + kStartAttachWait;
  for (auto& attachment : attaching) {
    attachment->waitUntilDone(std::chrono::duration_cast<std::chrono::milliseconds>(
        std::max(attachDeadline - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero())));
  }
  startupMark("attaches waited for");
  std::vector<std::string> notes;
  std::vector<std::unique_ptr<JvmConnection>> jvms;
  std::vector<pid_t> refusedJvms;
  std::erase_if(attaching, [&](std::unique_ptr<JvmAttachment>& attachment) {
    if (!attachment->done()) return false;
    for (std::string& note : attachment->takeNotes()) session.tell(std::move(note));
    if (auto jvm = attachment->takeConnection()) {
      jvms.push_back(std::move(jvm));
    } else if (!attachment->jvmExited()) {
      notes.push_back(session.tell(attachment->failureNote()));
      if (attachment->isJvm()) refusedJvms.push_back(attachment->pid());
    }
    return true;
  });
  if (timing && jvms.empty() && attaching.empty() && !launchesJava) {
    throw Error("method timing needs a HotSpot JVM, and no target is one (see the notes above)", ErrorKind::Target);
  }
  for (auto& jvm : jvms) publishJvm(*jvm, session.sampler(), notes);
  startupMark("jvms published");

  std::unique_ptr<LaunchedProcess> launched;
  std::unique_ptr<JvmConnection> launchedJvm;
  bool launchedJvmAdded = false;  // to the output
  if (!config.command.empty()) {
    std::vector<std::string> command = config.command;
    if (launchesJava) {
      launchedJvm = JvmConnection::forLaunch(sessionLimitsOf(config.memoryLimitBytes));
      command.insert(command.begin() + 1, launchedJvm->launchOption());
    }
    launched = std::make_unique<LaunchedProcess>(command, openFiles);
  }
  const pid_t firstTarget = launched && config.pids.empty() ? launched->pid() : config.pids.front();
  const int64_t startNs = jfr::Recording::now();
  StopConditions stop(signals, config.durationNs > 0 ? startNs + config.durationNs : 0);
  for (size_t i = 0; i < config.pids.size(); ++i) stop.watchProcess(config.pids[i], std::move(pinned[i]));
  if (launched) stop.watchProcess(launched->pid());

  std::optional<FileSeries> series;
  if (config.rotation.enabled()) series.emplace(config.outputPath, filePrefixOf(config, firstTarget), config.rotation);
  const std::string firstPath = series ? series->nextPath(time(nullptr)) : config.outputPath;
  std::unique_ptr<TargetOutput> output = session.openOutput(firstPath, std::move(series));
  for (auto& jvm : jvms) output->addJvm(*jvm);
  for (auto& attachment : attaching) output->setJavaFramesMissing(attachment->pid(), StackEnd::kJavaFramesPending);
  for (pid_t pid : refusedJvms) output->setJavaFramesMissing(pid, StackEnd::kJavaFramesUnavailable);
  RecordSummary summary;
  summary.outputPath = config.outputPath;
  try {
    for (pid_t pid : config.pids) session.beginTarget(pid, *output);
    // The launched child is still one gated thread, running our code: its own code is followed once released.
    if (launched) session.beginTarget(launched->pid(), *output, /*codeMapped=*/false);
    stop.requireAlive();
    session.clocks().enable();
    startupMark("clocks enabled");
    // Once sampling runs (method traces wait for their probe program, which loads meanwhile), and before the
    // consumer thread starts, which then reads the JVMs' records: method timing changes the JVMs' code;
    // allocation sampling and lock profiling only switch on the JVM's heap sampler and monitor events.
    if (asksAgents) {
      if (signals.stopPending()) {  // asked to stop while attaching: the JVMs are left alone
        notes.push_back(
            session.tell("stopped before method timing or the JVMs' own events began: no method was instrumented"));
      } else {
        for (auto& jvm : jvms) {
          session.timeMethods(*jvm, notes);
          session.startJvmEvents(*jvm, notes);
        }
      }
    }
    if (launched) {
      launched->release();
      session.followCode(launched->pid(), *output);
    }
    for (const std::string& note : notes) output->recording().note(jfr::Recording::now(), "warning", note);
    // Before the launched JVM is connected: its native unwind tables must follow its start-up.
    startupMark("agents asked");
    session.pipeline().start();
    if (launchedJvm) {
      try {
        // The JVM waits in its VMInit until it is resumed: its threads' first samples have Java frames.
        launchedJvm->acceptLaunched(launched->pid(), kAgentTimeout);
        std::vector<std::string> jvmNotes;
        if (asksAgents) {
          // The agent reports the JVM as it starts; its hook sites come with its first records.
          launchedJvm->session().drainUntil(
              [](const jvm::JavaModel& m) { return m.timedMethods().hookSites().has_value(); }, kAgentTimeout);
        }
        session.prepareJvm(*launchedJvm, jvmNotes);
        session.startJvmEvents(*launchedJvm, jvmNotes);
        // The output has the JVM before it goes on: the samples of the threads it then starts are resolved,
        // and their threads named, with the agent's records from the first one on.
        auto added = std::make_shared<std::promise<void>>();
        std::future<void> addedDone = added->get_future();
        session.pipeline().runOnConsumer([&output, added, jvm = launchedJvm.get(), jvmNotes] {
          output->addJvm(*jvm);
          for (const std::string& note : jvmNotes) output->recording().note(jfr::Recording::now(), "warning", note);
          added->set_value();
        });
        launchedJvmAdded = true;
        if (addedDone.wait_for(kAgentTimeout) != std::future_status::ready) {
          throw Error("the recording did not take the launched JVM in time");
        }
        launchedJvm->resumeLaunched(kAgentTimeout);
      } catch (const Error& e) {
        session.tell("the launched JVM's agent did not connect (" + std::string(e.what()) +
                         "): recording native frames only",
                     output.get(), "warning");
        if (!launchedJvmAdded) launchedJvm.reset();  // else the output refers to it: it stays, its session ended
      }
    }

    // A target that exited is let go at once: nothing of a process that gets its pid is taken for it.
    auto retireExited = [&](bool othersGoOn) {
      for (pid_t pid : stop.takeExited()) {
        std::function<void()> noteInFile;
        if (othersGoOn) {
          const std::string note =
              session.tell("process " + std::to_string(pid) + " exited; recording the other targets");
          noteInFile = [&output, note] { output->recording().note(jfr::Recording::now(), "info", note); };
        }
        session.retireTarget(pid, std::move(noteInFile));
      }
    };
    // The JVMs that could not take the agent at the start take it as soon as they can.
    auto joinAttached = [&] {
      std::erase_if(attaching, [&](std::unique_ptr<JvmAttachment>& attachment) {
        for (std::string& note : attachment->takeNotes()) session.tell(std::move(note), output.get());
        if (!attachment->done()) return false;
        if (auto jvm = attachment->takeConnection()) {
          std::vector<std::string> jvmNotes;
          session.prepareJvm(*jvm, jvmNotes);
          session.startJvmEvents(*jvm, jvmNotes);
          session.joinLateJvm(*jvm, *attachment, *output, std::move(jvmNotes));
          jvms.push_back(std::move(jvm));
        } else if (!attachment->jvmExited()) {
          session.refuseLateJvm(*attachment, *output);
        }
        return true;
      });
    };
    summary.stopReason = session.run(
        stop, describeTargets(config, launched ? launched->pid() : 0), startNs,
        [&] {
          retireExited(/*othersGoOn=*/true);
          joinAttached();
        },
        [&] { return std::vector<TargetOutput*>{output.get()}; });
    retireExited(/*othersGoOn=*/false);
    for (auto& attachment : attaching) {
      if (!attachment->done()) {
        session.tell("JVM " + std::to_string(attachment->pid()) +
                     ": the recording ended before its agent attached: native frames only");
      }
    }
    attaching.clear();
  } catch (...) {
    session.abandon();
    output->abandon();
    throw;
  }

  session.endSampling();
  output->finish(jfr::Recording::now(), /*finalTraces=*/true);
  session.endRecording(summary, startNs);
  if (config.rotation.enabled()) summary.outputPath = output->files().path();
  summary.fileCount = output->files().files();
  output->addCountsTo(summary);
  summary.javaProcesses = jvms.size() + (launchedJvm ? 1 : 0);
  summary.traceCounters = session.sampler().readTimerCounters();  // traces and allocation samples alike
  if (timing) {
    for (auto& jvm : jvms) summary.timedJvms += jvm->timingStarted() ? 1 : 0;
    if (launchedJvm && launchedJvm->timingStarted()) ++summary.timedJvms;
    auto addStubCounters = [&summary](const JvmConnection& jvm) {
      if (const timing::TimingTableView* table = jvm.timingTable()) summary.stubCounters += table->counters();
    };
    for (auto& jvm : jvms) addStubCounters(*jvm);
    if (launchedJvm) addStubCounters(*launchedJvm);
  }
  if (launched) {
    int status = 0;
    if (launched->reap(status)) summary.launchedExitStatus = status;
  }
  return summary;
}

}  // namespace jfrbpf::record
