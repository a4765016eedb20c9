#pragma once
// One recording, whatever its targets: its event sources (sources/), the BPF sampler and its clocks, the
// pipeline that turns samples into events, the rate budget, retention, the dump socket, the watch on the
// output directory, the progress line, the attach permits and the instrumentation slots. Its callers decide
// which processes are targets and which file each is written into: `record -p` and launch mode
// (process_targets.h: one file for all their targets) and `record --all` (host_targets.h: a file per JVM,
// JVMs coming and going). The session runs what every target and every JVM needs in one order, the main
// loop's own work, and the stop in named phases:
//
//   RecordingSession session(config, ...);
//   auto output = session.openOutput(path);            // a file (or series) targets are written into
//   session.beginTarget(pid, *output);                  // sampled from now on
//   session.prepareJvm(jvm, notes); output->addJvm(jvm) // its Java frames, what the sources hook in its code
//   session.startSources(jvm, notes);                  // once it is a target: what else the sources start
//   session.startSampling(); session.askAgents(jvms, ...); session.startConsumer();
//   reason = session.run(stop, what, startNs, turn, outputs); // until the duration, a signal, the targets end
//   session.endSampling();                              // 1. nothing more is sampled; all is drained
//   output->finish(...);                                // 2. the caller finishes its files
//   session.endRecording(summary, startNs);             // 3. retention, and the session's counts
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "userspace/record/config.h"
#include "userspace/record/files/file_series.h"
#include "userspace/record/files/output_directory.h"
#include "userspace/record/files/retention.h"
#include "userspace/record/jvm/jvm_attachment.h"
#include "userspace/record/jvm/jvm_connection.h"
#include "userspace/record/output/target_output.h"
#include "userspace/record/sampling/bpf_sampler.h"
#include "userspace/record/sampling/sampling_clocks.h"
#include "userspace/record/session/file_pusher.h"
#include "userspace/record/session/process_contexts.h"
#include "userspace/record/session/progress_line.h"
#include "userspace/record/session/rate_budget.h"
#include "userspace/record/session/sample_pipeline.h"
#include "userspace/record/session/slot_ranges.h"
#include "userspace/record/session/stop_conditions.h"
#include "userspace/record/sources/registry.h"
#include "userspace/record/summary.h"
#include "userspace/unwind/process_maps.h"
#include "userspace/unwind/table_cache.h"

namespace jfrbpf::record {

class RecordingSession {
 public:
  // `outputDirectory`: where the recording's files go (watched while it runs). `timedJvmsAtOnce`: how many
  // JVMs may have methods timed at the same time; each gets an equal range of the statistics slots. The
  // agents of `attachAtStart` begin to attach at once, while the BPF programs load (the two take about as
  // long): takeStartAttachments() hands them over.
  RecordingSession(const RecordConfig& config, std::string outputDirectory, size_t timedJvmsAtOnce,
                   const std::vector<pid_t>& attachAtStart = {});

  const RecordConfig& config() const { return config_; }
  BpfSampler& sampler() { return sampler_; }

  // The agent of JVM `pid` attached on a thread of its own, in turn with the session's other attaches.
  std::unique_ptr<JvmAttachment> attach(pid_t pid);
  std::vector<std::unique_ptr<JvmAttachment>> takeStartAttachments() { return std::move(startAttachments_); }

  // Sampling begins: the clocks run.
  void startSampling();
  // Once sampling runs, what the event sources ask of `jvms`' agents (instrument() and startSources()), unless
  // a stop is already pending. Before startConsumer(), which then reads
  // the JVMs' records.
  void askAgents(const std::vector<JvmConnection*>& jvms, bool stopPending, std::vector<std::string>& notes);
  // The consumer thread begins to turn the rings into events.
  void startConsumer();
  // A JVM launched with `jvm`'s agent (held in its VMInit), `pid`: its agent accepted, its walker tables
  // published and what the recording asks of it started, `output` given it on the consumer thread, and the
  // JVM resumed, so that its threads' first samples have Java frames. Returns whether `output` refers to
  // `jvm` (which must then live as long as it); on failure says so, and the process is recorded with native
  // frames.
  bool addLaunchedJvm(JvmConnection& jvm, pid_t pid, TargetOutput& output);

  // An output for targets to be written into: the file at `path`, or with `series` the first of its files.
  std::unique_ptr<TargetOutput> openOutput(const std::string& path, std::optional<FileSeries> series = {});

  // `pid` is sampled into `output` from now on: clocks on its threads, their CPU time so far (what its samples
  // are accounted from), its code's unwind tables, its threads known to BPF, and its OpenTelemetry process
  // context read. A launched process before
  // it runs its own program (codeMapped false) gets its unwind tables with followCode().
  void beginTarget(pid_t pid, TargetOutput& output, bool codeMapped = true);
  void followCode(pid_t pid, TargetOutput& output);
  // Nothing more of `pid` is sampled; `whenDrained` runs on the consumer thread once nothing of it is left
  // in the rings (its output may be finished there).
  void retireTarget(pid_t pid, std::function<void()> whenDrained = {});

  // What a JVM needs before its Java frames can be recorded: its walker tables in BPF, then instrument().
  std::optional<uint32_t> prepareJvm(JvmConnection& jvm, std::vector<std::string>& notes);
  // What the event sources start in the JVM's agent besides its instrumentation (--alloc's heap sampler,
  // --lock's monitor events): after beginTarget, so that the stacks of the first events already find the
  // process's native unwind tables in BPF.
  void startSources(JvmConnection& jvm, std::vector<std::string>& notes);
  // What the event sources ask of the JVM's code (methods timed and traced, the waits of virtual threads),
  // instrumented in a range of slots of its own. Returns that range's first slot, to be given back with
  // releaseTimingSlots() once its file is finished.
  std::optional<uint32_t> instrument(JvmConnection& jvm, std::vector<std::string>& notes);
  void releaseTimingSlots(uint32_t base) { slots_.release(base); }
  // A JVM being recorded whose agent attached late (`attachment`; prepared already): `output` gets its Java
  // frames from its next samples on, and `notes` with one that says since when.
  void joinLateJvm(JvmConnection& jvm, const JvmAttachment& attachment, TargetOutput& output,
                   std::vector<std::string> notes);
  // A JVM being recorded whose attach ended without an agent: said, and its stacks that stop short are
  // marked as having no Java frames.
  void refuseLateJvm(const JvmAttachment& attachment, TargetOutput& output);

  // Says `note` once: on the terminal (above the progress line) and, with `output`, in its file (on the
  // consumer thread). Returns it.
  std::string tell(std::string note, TargetOutput* output = nullptr, const char* level = "info");

  // The main loop. Each turn: the caller's `turn` (its targets coming and going), then the session's own work
  // on `outputs()` (the output directory checked, retention, dump requests, the rate budget, the progress
  // line), until `stop` says why to end. The progress line names `what` and counts from `startNs`.
  StopReason run(StopConditions& stop, const std::string& what, int64_t startNs, const std::function<void()>& turn,
                 const std::function<std::vector<TargetOutput*>()>& outputs);

  // The stop, phase 1: the clocks stop, the threads' final CPU times are read, the consumer thread stops and
  // everything left in the rings goes into the outputs (SamplePipeline::stopAndDrain). From here the
  // calling thread owns the outputs and the JVM sessions.
  void endSampling();
  // Phase 3, once the caller finished its outputs (phase 2): retention swept a last time, --push's files
  // delivered (waiting at most --push-timeout for what is still pending), and what the
  // session counted (sampler, trace probe, losses no file owns, memory, the period in force, the seconds
  // since `startNs`) and the event sources' reports into `summary`.
  void endRecording(RecordSummary& summary, int64_t startNs);
  // `jvms`' part of the recording is over: how many took the agent, and what the sources count of them.
  void addJvmsTo(RecordSummary& summary, const std::vector<const JvmConnection*>& jvms);
  // After a failure: sampling stops, nothing more is drained.
  void abandon() { pipeline_.abandon(); }

 private:
  // Once the kernel's symbols turn out unreadable: says so on stderr and in every file (the frames stay unnamed).
  void tellIfKernelFramesUnnamed(const std::vector<TargetOutput*>& outputs);
  // Whether the event sources ask the JVMs' agents for more than their frames once sampling runs.
  bool asksAgents() const;

  const RecordConfig& config_;
  EventSources sources_;  // before the sampler: they say what it loads
  std::string outputDirectory_;
  // --push: made before anything is attached or loaded (its spools can refuse the directory), and gone only
  // after the pipeline, whose consumer thread finishes files into it.
  std::unique_ptr<FilePusher> pusher_;
  // While the BPF programs load, so do the native unwind tables of the targets named at the start (0.1 s for a
  // JVM's libjvm), kept alive in `prefetchedTables_` until the main loop starts, by when beginTarget has
  // published them. (The kernel's symbols are the pipeline's, read after the first samples are taken.)
  unwind::TableCache unwindTables_;
  std::future<std::vector<unwind::AddressSpace>> tablesLoading_;
  std::vector<unwind::AddressSpace> prefetchedTables_;
  AttachPermits permits_{kConcurrentAttaches};
  std::vector<std::unique_ptr<JvmAttachment>> startAttachments_;  // before the sampler: they attach as it loads
  BpfSampler sampler_;
  SamplingClocks clocks_;
  SamplePipeline pipeline_;
  RateBudget budget_;
  ProcessContexts contexts_{pipeline_, sampler_, [this](std::string line) { tell(std::move(line)); }};
  RetentionSweeper retention_;
  SlotRanges slots_;
  std::optional<ProgressLine> progress_;  // while run() runs
  bool toldKernelFramesUnnamed_ = false;
};

}  // namespace jfrbpf::record
