#pragma once
// jfrbpf's link to one JVM: its agent loaded (by dynamic attach into a running JVM, or -agentpath at
// launch), the channel session that feeds the Java model, and the BPF tables the stack walker needs. Java
// frames for a process exist only through one of these.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "userspace/attach/agent_staging.h"
#include "userspace/jvm/channel_listener.h"
#include "userspace/jvm/java_session.h"
#include "userspace/record/sampling/jvm_kernel_side.h"
#include "userspace/timing/method_timing_options.h"
#include "userspace/timing/probe_sites.h"
#include "userspace/timing/timing_table_view.h"

namespace jfrbpf::record {

// Where the JVMTI agent library is: $JFRBPF_AGENT, else next to the jfrbpf executable, in ../lib/jfrbpf,
// or in the build tree. Throws jfrbpf::Error if there is none.
std::string agentLibraryPath();

class JvmConnection {
 public:
  // Loads the agent into running JVM `pid` and waits for its replay of the JVM's state. Throws
  // jfrbpf::Error (attach::AttachError for attach failures) with a one-line reason.
  // `limits`: what the session may hold (a JVM's share of --memory-limit).
  static std::unique_ptr<JvmConnection> attach(pid_t pid, std::chrono::milliseconds timeout,
                                               jvm::SessionLimits limits = {});

  // Launch mode: call before starting the JVM, put launchOption() on its command line, then
  // acceptLaunched(pid) once it runs, which waits for the agent's replay. The JVM waits in its VMInit
  // until resumeLaunched() (publish first, so that its first Java frames are walked) or a timeout.
  static std::unique_ptr<JvmConnection> forLaunch(jvm::SessionLimits limits = {});
  std::string launchOption() const;
  void acceptLaunched(pid_t pid, std::chrono::milliseconds timeout);
  void resumeLaunched(std::chrono::milliseconds timeout);

  pid_t pid() const { return pid_; }
  jvm::JavaSession& session() { return *session_; }
  const jvm::JavaModel& model() const { return session_->model(); }
  // A one-line note for the user and the recording when something about the agent is worth knowing (for
  // example JDK 21+'s dynamic-agent warning on the target's stderr).
  const std::string& note() const { return note_; }

  // Publishes the walker's JVM layout to the sampler once it is known (and at the next call, with the JVM's code
  // frees watched), and keeps the JavaThread* of every live Java thread in step (for the walker's
  // JavaFrameAnchor fallback). Returns false (with `whyNot`) while the layout is unknown.
  bool publish(JvmKernelSide& sampler, std::string& whyNot);
  // The memory budget takes this JVM's Java frames away (`why`): the session ends, the model's methods and
  // code are freed, and the walker no longer takes the JVM's code for Java code.
  void dropJavaFrames(JvmKernelSide& sampler, std::string why);
  // The JVM exited: the walker's entries for its threads go (the map is shared by every JVM the recording
  // ever sees, and a thread that was alive at the exit was never forgotten otherwise).
  void forgetThreads(JvmKernelSide& sampler);

  // Method timing in this JVM: with traces, a uprobe on its agent's trace stub; then the agent instruments
  // the loaded classes with slots [slotBase, slotLimit) and this maps its timing table. Returns once it
  // did. With `virtualWaitIntervalNs` (else protocol::kNoVirtualThreadWaits) it also reports the waits of its
  // virtual threads, if it has any (protocol/virtual_thread_records.h). Throws jfrbpf::Error (old agent, JVM
  // that cannot retransform, no answer within `timeout`).
  void startTiming(JvmKernelSide& sampler, const timing::MethodTimingOptions& options, uint64_t virtualWaitIntervalNs,
                   uint32_t slotBase, uint32_t slotLimit, std::chrono::milliseconds timeout);
  bool timingStarted() const { return timingTable_ != nullptr; }
  // --alloc: the agent samples allocations (JVMTI SampledObjectAlloc) into the trace probe, attached here
  // if tracing did not attach it. Throws jfrbpf::Error (an older agent, no answer, the JVM refused).
  void startAllocations(JvmKernelSide& sampler, uint64_t intervalBytes, uint32_t samplesPerSecond,
                        std::chrono::milliseconds timeout);
  // --lock: the agent reports monitor waits of at least `thresholdNs` (JVMTI monitor events) into the trace
  // probe, attached here if nothing attached it yet. Throws jfrbpf::Error as startAllocations.
  void startLocks(JvmKernelSide& sampler, uint64_t thresholdNs, std::chrono::milliseconds timeout);

  // As a recording with --off-cpu stops: hands the agent the flush of this JVM's waits still going on
  // (JvmKernelSide::offCpuFlushIterator), which it runs on its own thread, in the JVM's address space, so that
  // they get their user stacks. False when the agent cannot take it (an older agent, the session is over).
  bool handOffCpuFlush(JvmKernelSide& sampler);
  // The agent's counts (readable after the JVM exited); null until timing started.
  const timing::TimingTableView* timingTable() const { return timingTable_.get(); }
  bool traceProbeAttached() const { return hookSites_.has_value(); }
  // Whether the kernel runs the trace stub's uprobe on its fast path (meaningful after the first hits).
  timing::ProbeSiteState probeSiteState() const;

 private:
  JvmConnection() = default;
  // The trace probe on this JVM's agent, for events the agent sends through it (`what`, which needs the
  // agent's `helloFlag`).
  void attachEventProbe(JvmKernelSide& sampler, uint32_t helloFlag, const std::string& what);
  // Uprobes on the JVM's code frees, then `layout` published again saying so, if they could be attached.
  void watchCodeFrees(JvmKernelSide& sampler, jfrbpf_hotspot layout);
  // Sends `request` and waits for the agent's answer (`answered` gives its status from the model).
  template <typename Request, typename Answered>
  void askAgent(protocol::CommandType type, const Request& request, Answered answered, const std::string& what,
                std::chrono::milliseconds timeout);

  pid_t pid_ = 0;
  std::unique_ptr<jvm::ChannelListener> listener_;  // launch mode only
  std::unique_ptr<jvm::JavaSession> session_;
  jvm::SessionLimits limits_;  // launch mode: for the session to come
  std::string note_;
  bool layoutPublished_ = false;
  std::optional<jfrbpf_hotspot> layoutAwaitingCodeFrees_;  // published without them; watched at the next publish
  uint64_t publishedThreadsVersion_ = UINT64_MAX;
  std::unordered_map<uint32_t, uint64_t> publishedThreads_;  // tid -> JavaThread* in the sampler's map
  std::optional<jvm::HookSiteAddresses> hookSites_;           // set once traces are probed
  std::unique_ptr<timing::TimingTableView> timingTable_;
};

}  // namespace jfrbpf::record
