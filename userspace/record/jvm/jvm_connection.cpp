#include "userspace/record/jvm/jvm_connection.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "base/debug_options.h"
#include "base/error.h"
#include "jvmsupport/protocol/allocation_records.h"
#include "jvmsupport/protocol/lock_records.h"
#include "jvmsupport/protocol/records.h"
#include "jvmsupport/protocol/timing_records.h"
#include "userspace/attach/attach_error.h"
#include "userspace/attach/hotspot_vm.h"
#include "userspace/record/jvm/hotspot_layout.h"

namespace jfrbpf::record {
namespace {

constexpr const char* kAgentFileName = "libjfrbpf-agent.so";

struct CommandBytes {
  std::vector<uint8_t> bytes;
  bool append(const void* data, size_t size) {
    auto* p = static_cast<const uint8_t*>(data);
    bytes.insert(bytes.end(), p, p + size);
    return true;
  }
};

}  // namespace

std::string agentLibraryPath() {
  if (const char* configured = std::getenv("JFRBPF_AGENT")) {
    if (access(configured, R_OK) == 0) return configured;
    throw Error(std::string("JFRBPF_AGENT=") + configured + " is not a readable file", ErrorKind::Environment);
  }
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path dir = exe.parent_path();
  for (const std::filesystem::path& candidate :
       {dir / kAgentFileName, dir / ".." / "lib" / "jfrbpf" / kAgentFileName,
        dir / ".." / ".." / "jvmsupport" / "agent" / kAgentFileName}) {
    if (access(candidate.c_str(), R_OK) == 0) return std::filesystem::weakly_canonical(candidate, ec).string();
  }
  throw Error("the JVM agent library (" + std::string(kAgentFileName) + ") is not installed next to jfrbpf; "
              "set JFRBPF_AGENT to its path",
              ErrorKind::Environment);
}

namespace {

// A JVM found within milliseconds of its start may serve the load before it can host an agent (HotSpot's
// attach listener answers before JVMTI's live phase); our agent then says so, and the caller asks again.
void loadAgent(const attach::HotSpotVm& vm, const jvm::ChannelListener& listener) {
  attach::StagedAgent staged = attach::StagedAgent::prepare(vm.process(), agentLibraryPath());
  try {
    vm.load(staged.pathInTarget(), true, listener.agentOptions());
  } catch (const attach::AttachError& e) {
    if (e.agentResult() == protocol::kAgentBusy) {
      throw attach::AttachError(attach::AttachFailure::AgentLoadFailed,
                                vm.process().describe() + " is recorded by as many jfrbpf recorders as its agent serves "
                                "at once (" + std::to_string(protocol::kMaxAgentSessions) +
                                    "): stop one of them to record it here",
                                e.agentResult());
    }
    if (e.agentResult() != protocol::kAgentVmStarting) throw;
    throw attach::AttachError(attach::AttachFailure::NotReady,
                              vm.process().describe() + " cannot host an agent yet: the JVM is still starting");
  }
  // `staged` goes: the JVM's mapping outlives the file, and nothing is left in its /tmp
}

}  // namespace

std::unique_ptr<JvmConnection> JvmConnection::attach(pid_t pid, std::chrono::milliseconds timeout,
                                                     jvm::SessionLimits limits) {
  std::unique_ptr<JvmConnection> connection(new JvmConnection());
  connection->pid_ = pid;
  attach::HotSpotVm vm = attach::HotSpotVm::inspect(pid);
  if (vm.facts().loadingAgentPrintsWarning()) connection->note_ = attach::dynamicAgentWarningNote(vm.target());
  jvm::ChannelListener listener(pid);
  loadAgent(vm, listener);
  connection->session_ = jvm::JavaSession::accept(listener, timeout, limits);
  bool replayed = connection->session_->drainUntil([](const jvm::JavaModel& m) { return m.initialReplayDone(); },
                                                   timeout);
  if (!replayed) {
    throw Error("the agent in JVM " + std::to_string(pid) + " did not report the JVM's state in time" +
                (connection->session_->error().empty() ? "" : ": " + connection->session_->error()));
  }
  return connection;
}

std::unique_ptr<JvmConnection> JvmConnection::forLaunch(jvm::SessionLimits limits) {
  std::unique_ptr<JvmConnection> connection(new JvmConnection());
  connection->limits_ = limits;
  connection->listener_ = std::make_unique<jvm::ChannelListener>();
  return connection;
}

std::string JvmConnection::launchOption() const {
  return "-agentpath:" + agentLibraryPath() + "=" + listener_->agentOptions();
}

void JvmConnection::acceptLaunched(pid_t pid, std::chrono::milliseconds timeout) {
  pid_ = pid;
  listener_->setTargetPid(pid);
  session_ = jvm::JavaSession::accept(*listener_, timeout, limits_);
  listener_.reset();
  if (!session_->drainUntil([](const jvm::JavaModel& m) { return m.initialReplayDone(); }, timeout)) {
    throw Error("the agent in launched JVM " + std::to_string(pid) + " did not report the JVM's state in time" +
                (session_->error().empty() ? "" : ": " + session_->error()));
  }
}

void JvmConnection::resumeLaunched(std::chrono::milliseconds timeout) {
  if (!session_->sendCommand(protocol::CommandType::kResume, {}, timeout)) {
    throw Error("cannot tell launched JVM " + std::to_string(pid_) + " to go on: " + session_->error());
  }
}

bool JvmConnection::handOffCpuFlush(JvmKernelSide& sampler) {
  if (!session_->running()) return false;
  const auto& agent = session_->model().agent();
  if (!agent || (agent->flags & protocol::kHelloReadsIterators) == 0) return false;
  UniqueFd iterator = sampler.offCpuFlushIterator(static_cast<uint32_t>(pid_));
  return iterator && session_->sendCommand(protocol::CommandType::kReadIterator, {}, std::chrono::milliseconds(200),
                                          iterator.get());
}

void JvmConnection::forgetThreads(JvmKernelSide& sampler) {
  for (const auto& [tid, javaThread] : publishedThreads_) sampler.forgetJavaThread(tid);
  publishedThreads_.clear();
}

bool JvmConnection::publish(JvmKernelSide& sampler, std::string& whyNot) {
  const jvm::JavaModel& m = model();
  if (m.threads().version() != publishedThreadsVersion_) {
    publishedThreadsVersion_ = m.threads().version();
    std::unordered_map<uint32_t, uint64_t> live;
    m.threads().forEach([&](const jvm::JavaThreadInfo& t) {
      if (t.tid > 0 && t.javaThread != 0 && t.endTicks == UINT64_MAX) live[static_cast<uint32_t>(t.tid)] = t.javaThread;
    });
    for (const auto& [tid, javaThread] : publishedThreads_) {
      if (live.count(tid) == 0) sampler.forgetJavaThread(tid);  // ended: the tid may come back as another thread
    }
    for (const auto& [tid, javaThread] : live) {
      auto known = publishedThreads_.find(tid);
      if (known == publishedThreads_.end() || known->second != javaThread) sampler.setJavaThread(tid, javaThread);
    }
    publishedThreads_ = std::move(live);
  }
  // Only from a complete picture: a layout without the interpreter (reported during the replay) would
  // make the walker take every interpreted frame for native code.
  if (!layoutPublished_ && m.initialReplayDone()) {
    std::optional<jfrbpf_hotspot> layout = hotspotLayout(m, whyNot);
    if (!layout) return false;
    layout->call_stub_return = callStubReturnAddress(pid_, m, *layout);
    addFrozenFrameLayout(pid_, m, *layout);
    // At once, with every code blob checked in every walk: the uprobes that let the walker trust the blobs it
    // checked (until the JVM next frees code) come at the next publish, once sampling runs, for they cost
    // 20-30 ms of libbpf reading libjvm's symbol table.
    layout->code_frees_watched = 0;
    sampler.setHotspot(static_cast<uint32_t>(pid_), *layout);
    layoutPublished_ = true;
    layoutAwaitingCodeFrees_ = layout;
  } else if (layoutAwaitingCodeFrees_) {
    watchCodeFrees(sampler, *layoutAwaitingCodeFrees_);
    layoutAwaitingCodeFrees_.reset();
  }
  return true;
}

void JvmConnection::watchCodeFrees(JvmKernelSide& sampler, jfrbpf_hotspot layout) {
  // Before the layout says so: the walker may only trust the code blobs it checked once every free is seen.
  // JFRBPF_DEBUG=unwatched-code takes the path of a JVM whose frees cannot be watched (for tests and
  // comparisons): every blob is checked in every walk.
  std::string notWatched = "JFRBPF_DEBUG=unwatched-code";
  std::optional<std::string> libjvm;
  if (!debugOption("unwatched-code")) libjvm = libjvmFile(pid_, notWatched);
  if (libjvm && sampler.watchCodeFrees(static_cast<uint32_t>(pid_), *libjvm, notWatched)) {
    layout.code_frees_watched = 1;
    sampler.setHotspot(static_cast<uint32_t>(pid_), layout);
  } else if (std::getenv("JFRBPF_DEBUG")) {
    std::fprintf(stderr, "  [debug] JVM %d: code frees not watched (%s): its code blobs are checked in every walk\n",
                 static_cast<int>(pid_), notWatched.c_str());
  }
}

void JvmConnection::dropJavaFrames(JvmKernelSide& sampler, std::string why) {
  layoutAwaitingCodeFrees_.reset();
  sampler.forgetHotspot(static_cast<uint32_t>(pid_));
  for (const auto& [tid, javaThread] : publishedThreads_) sampler.forgetJavaThread(tid);
  publishedThreads_.clear();
  session_->dropJavaFrames(std::move(why));
}

void JvmConnection::startTiming(JvmKernelSide& sampler, const timing::MethodTimingOptions& options,
                                uint64_t virtualWaitIntervalNs, uint32_t slotBase, uint32_t slotLimit,
                                std::chrono::milliseconds timeout) {
  const std::string jvmName = "JVM " + std::to_string(pid_);
  const std::optional<jvm::AgentInfo>& agent = model().agent();
  const std::optional<jvm::HookSiteAddresses>& sites = model().timedMethods().hookSites();
  if (!agent || (agent->flags & protocol::kHelloMethodHooks) == 0 || !sites) {
    throw Error(jvmName + " runs an older jfrbpf agent without method hooks (a JVM keeps the first agent library "
                "it loaded): restart it to time methods");
  }
  if (!session_->running()) throw Error(jvmName + ": the agent session ended before method timing could start");
  if (!options.traceFilter.empty()) {
    // Before any method is instrumented, so that no traced invocation goes unseen.
    timing::ProbeTarget site = timing::locateProbeSite(pid_, sites->traceSite);
    sampler.attachTraceProbe(static_cast<uint32_t>(pid_), site.path, site.fileOffset, agent->sessionNumber);
    hookSites_ = *sites;
  }

  session_->model().timedMethods().setSlotRange(slotBase, slotLimit);
  protocol::StartTiming request{slotBase, slotLimit, static_cast<uint64_t>(std::max<int64_t>(0, options.traceThresholdNs)),
                                options.timingFilter, options.traceFilter, virtualWaitIntervalNs};
  CommandBytes command;
  protocol::WireWriter<CommandBytes> writer(command);
  protocol::encode(writer, request);
  if (!session_->sendCommand(protocol::CommandType::kStartTiming, command.bytes, timeout)) {
    throw Error(jvmName + ": the agent did not take the method timing request");
  }
  bool answered = session_->drainUntil([](const jvm::JavaModel& m) { return m.timedMethods().status().has_value(); },
                                       timeout);
  const std::optional<jvm::TimingStatusInfo>& status = model().timedMethods().status();
  if (!answered || !status) {
    throw Error(jvmName + ": the agent did not finish instrumenting methods in time" +
                (session_->error().empty() ? "" : ": " + session_->error()));
  }
  if (status->state != protocol::TimingState::kApplied) {
    throw Error(jvmName + ": method timing unavailable: " + status->message);
  }
  timingTable_ = std::make_unique<timing::TimingTableView>(pid_, status->tableAddress, status->tableBytes, slotBase,
                                                           slotLimit - slotBase);
}

void JvmConnection::attachEventProbe(JvmKernelSide& sampler, uint32_t helloFlag, const std::string& what) {
  const std::string jvmName = "JVM " + std::to_string(pid_);
  const std::optional<jvm::AgentInfo>& agent = model().agent();
  const std::optional<jvm::HookSiteAddresses>& sites = model().timedMethods().hookSites();
  if (!agent || (agent->flags & helloFlag) == 0 || !sites) {
    throw Error(jvmName + " runs an older jfrbpf agent without " + what +
                " (a JVM keeps the first agent library it loaded): restart it for " + what);
  }
  if (!session_->running()) throw Error(jvmName + ": the agent session ended before " + what + " could start");
  if (!hookSites_) {
    timing::ProbeTarget site = timing::locateProbeSite(pid_, sites->traceSite);
    sampler.attachTraceProbe(static_cast<uint32_t>(pid_), site.path, site.fileOffset, agent->sessionNumber);
    hookSites_ = *sites;
  }
}

template <typename Request, typename Answered>
void JvmConnection::askAgent(protocol::CommandType type, const Request& request, Answered answered,
                             const std::string& what, std::chrono::milliseconds timeout) {
  const std::string jvmName = "JVM " + std::to_string(pid_);
  CommandBytes command;
  protocol::WireWriter<CommandBytes> writer(command);
  protocol::encode(writer, request);
  if (!session_->sendCommand(type, command.bytes, timeout)) {
    throw Error(jvmName + ": the agent did not take the request for " + what);
  }
  if (!session_->drainUntil([&](const jvm::JavaModel& m) { return answered(m).has_value(); }, timeout) ||
      !answered(model())) {
    throw Error(jvmName + ": the agent did not start " + what + " in time");
  }
  if (!answered(model())->started) throw Error(jvmName + ": " + what + " unavailable: " + answered(model())->message);
}

void JvmConnection::startAllocations(JvmKernelSide& sampler, uint64_t intervalBytes, uint32_t samplesPerSecond,
                                     std::chrono::milliseconds timeout) {
  const std::string what = "allocation sampling";
  attachEventProbe(sampler, protocol::kHelloAllocations, what);
  protocol::StartAllocations request;
  if (intervalBytes > 0) {
    request.intervalBytes = intervalBytes;
  } else {
    request.samplesPerSecond = samplesPerSecond;
  }
  askAgent(protocol::CommandType::kStartAllocations, request,
           [](const jvm::JavaModel& m) -> const auto& { return m.allocationStatus(); }, what, timeout);
}

void JvmConnection::startLocks(JvmKernelSide& sampler, uint64_t thresholdNs, std::chrono::milliseconds timeout) {
  const std::string what = "lock profiling";
  attachEventProbe(sampler, protocol::kHelloLocks, what);
  protocol::StartLocks request;
  request.thresholdNs = thresholdNs;
  askAgent(protocol::CommandType::kStartLocks, request,
           [](const jvm::JavaModel& m) -> const auto& { return m.lockStatus(); }, what, timeout);
}

timing::ProbeSiteState JvmConnection::probeSiteState() const {
  return hookSites_ ? timing::readProbeSiteState(pid_, hookSites_->traceSite) : timing::ProbeSiteState::kUnknown;
}

}  // namespace jfrbpf::record
