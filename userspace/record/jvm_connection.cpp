#include "userspace/record/jvm_connection.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "userspace/attach/hotspot_vm.h"
#include "userspace/base/error.h"
#include "userspace/record/hotspot_layout.h"

namespace jfrbpf::record {
namespace {

constexpr const char* kAgentFileName = "libjfrbpf-agent.so";

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

std::unique_ptr<JvmConnection> JvmConnection::attach(pid_t pid, std::chrono::milliseconds timeout) {
  std::unique_ptr<JvmConnection> connection(new JvmConnection());
  connection->pid_ = pid;
  attach::HotSpotVm vm = attach::HotSpotVm::inspect(pid);
  if (vm.facts().loadingAgentPrintsWarning()) connection->note_ = attach::dynamicAgentWarningNote(vm.target());
  jvm::ChannelListener listener(pid);
  connection->staged_.emplace(vm.loadAgentLibrary(agentLibraryPath(), listener.agentOptions()));
  connection->session_ = jvm::JavaSession::accept(listener, timeout);
  bool replayed = connection->session_->drainUntil([](const jvm::JavaModel& m) { return m.initialReplayDone(); },
                                                   timeout);
  if (!replayed) {
    throw Error("the agent in JVM " + std::to_string(pid) + " did not report the JVM's state in time" +
                (connection->session_->error().empty() ? "" : ": " + connection->session_->error()));
  }
  return connection;
}

std::unique_ptr<JvmConnection> JvmConnection::forLaunch() {
  std::unique_ptr<JvmConnection> connection(new JvmConnection());
  connection->listener_ = std::make_unique<jvm::ChannelListener>();
  return connection;
}

std::string JvmConnection::launchOption() const {
  return "-agentpath:" + agentLibraryPath() + "=" + listener_->agentOptions();
}

void JvmConnection::acceptLaunched(pid_t pid, std::chrono::milliseconds timeout) {
  pid_ = pid;
  listener_->setTargetPid(pid);
  session_ = jvm::JavaSession::accept(*listener_, timeout);
  listener_.reset();
}

bool JvmConnection::publish(BpfSampler& sampler, std::string& whyNot) {
  const jvm::JavaModel& m = model();
  if (!layoutPublished_) {
    std::optional<jfrbpf_hotspot> layout = hotspotLayout(m, whyNot);
    if (!layout) return false;
    sampler.setHotspot(static_cast<uint32_t>(pid_), *layout);
    layoutPublished_ = true;
  }
  return true;
}

}  // namespace jfrbpf::record
