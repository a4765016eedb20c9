#include "userspace/discovery/discovery.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/error.h"
#include "userspace/discovery/hsperfdata.h"
#include "userspace/discovery/java_command_line.h"
#include "userspace/discovery/java_release.h"
#include "userspace/discovery/jvm_mappings.h"
#include "userspace/discovery/perf_data_file.h"
#include "userspace/proc/boot_time.h"
#include "userspace/proc/files.h"
#include "userspace/proc/namespaces.h"
#include "userspace/proc/nul_separated.h"
#include "userspace/proc/process_dir.h"
#include "userspace/proc/root_files.h"
#include "userspace/proc/stat.h"
#include "userspace/proc/status.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::discovery {
namespace {

constexpr size_t kSmallProcFileLimit = 64 * 1024;
constexpr size_t kCmdlineLimit = 256 * 1024;
constexpr size_t kEnvironLimit = 1 << 20;
constexpr int kSigquit = 3;

Error permissionError(pid_t pid, const char* what) {
  return Error("cannot read /proc/" + std::to_string(pid) + "/" + what +
                   ": permission denied; run jfrbpf as root (or with CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH)",
               ErrorKind::Environment);
}

std::string userName(uid_t uid) {
  long suggested = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::string buffer(suggested > 0 ? static_cast<size_t>(suggested) : 4096, '\0');
  passwd entry{};
  passwd* found = nullptr;
  while (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == ERANGE && buffer.size() < (1u << 20)) {
    buffer.resize(buffer.size() * 2);
  }
  return found ? std::string(found->pw_name) : std::to_string(uid);
}

// Milliseconds since the epoch at which the process started, from its start tick count and the boot time.
std::optional<int64_t> processStartMs(int procDirFd, const std::string& procRoot) {
  proc::FileData statText = proc::readFileAt(procDirFd, "stat", kSmallProcFileLimit);
  if (!statText.ok()) return std::nullopt;
  auto stat = proc::parseStat(statText.bytes);
  long ticksPerSecond = ::sysconf(_SC_CLK_TCK);
  if (!stat || ticksPerSecond <= 0) return std::nullopt;
  std::optional<int64_t> bootSeconds = proc::readBootTimeSeconds(procRoot);
  if (!bootSeconds) return std::nullopt;
  return *bootSeconds * 1000 + static_cast<int64_t>(stat->startTicks) * 1000 / ticksPerSecond;
}

// The options the VM saw, in the order HotSpot applies them (later ones win): JAVA_TOOL_OPTIONS, then the
// launcher's JDK_JAVA_OPTIONS and command line, then _JAVA_OPTIONS.
std::string vmOptionsFromLaunch(int procDirFd, const JavaCommandLine& commandLine) {
  proc::FileData environment = proc::readFileAt(procDirFd, "environ", kEnvironLimit);
  std::string options;
  auto append = [&](std::optional<std::string_view> words) {
    for (std::string_view word : proc::splitFields(words.value_or(""))) {
      if (!options.empty()) options += ' ';
      options += word;
    }
  };
  if (environment.ok()) {
    append(proc::environmentValue(environment.bytes, "JAVA_TOOL_OPTIONS"));
    append(proc::environmentValue(environment.bytes, "JDK_JAVA_OPTIONS"));
  }
  for (const std::string& option : commandLine.vmOptions) append(option);
  if (environment.ok()) append(proc::environmentValue(environment.bytes, "_JAVA_OPTIONS"));
  return options;
}

// JvmInfo::optedOut.
bool optsOutOfProfiling(int procDirFd) {
  proc::FileData environment = proc::readFileAt(procDirFd, "environ", kEnvironLimit);
  if (!environment.ok()) return false;
  std::optional<std::string_view> value = proc::environmentValue(environment.bytes, "JFRBPF_OPT_OUT");
  return value && !value->empty() && *value != "0" && *value != "false";
}

// True when <tmp>/.java_pid<nspid> inside the JVM's root is a socket: its attach listener already runs.
bool attachListenerRunning(int procDirFd, pid_t namespacePid) {
  UniqueFd root = proc::openProcessRootAt(procDirFd);
  if (!root) return false;
  // O_PATH alone: openat2 refuses it with any other access flag (a socket cannot be opened otherwise).
  UniqueFd socket = proc::openInRoot(root.get(), "/tmp/.java_pid" + std::to_string(namespacePid), O_PATH);
  struct stat info {};
  return socket && ::fstat(socket.get(), &info) == 0 && S_ISSOCK(info.st_mode);
}

void applyPerfData(const PerfData& counters, JvmInfo& info, std::optional<bool>& capabilityAttach) {
  info.source = JvmFactsSource::PerfData;
  info.initializing = !counters.accessible;
  auto text = [&](std::string_view name) {
    const std::string* value = counters.string(name);
    return value ? *value : std::string();
  };
  info.javaCommand = text(perf_counter::kJavaCommand);
  info.mainClass = std::string(mainClassOf(info.javaCommand));
  info.javaVersion = text(perf_counter::kJavaVersion);
  info.vmName = text(perf_counter::kVmName);
  info.vmVersion = text(perf_counter::kVmVersion);
  info.javaHome = text(perf_counter::kJavaHome);
  info.vmArgs = text(perf_counter::kVmArgs);
  if (std::string flags = text(perf_counter::kVmFlags); !proc::trimBlanks(flags).empty()) {
    info.vmArgs += (info.vmArgs.empty() ? "" : " ") + flags;
  }
  if (auto begin = counters.number(perf_counter::kCreateVmBeginTime); begin && *begin > 0) info.startTimeMs = begin;
  if (const std::string* capabilities = counters.string(perf_counter::kJvmCapabilities); capabilities && !capabilities->empty()) {
    capabilityAttach = capabilities->front() == '1';
  }
}

}  // namespace

bool isHotSpotJvm(pid_t pid, const DiscoveryOptions& options) {
  UniqueFd dir = proc::openProcessDir(options.procRoot, pid);
  if (!dir) return false;
  JvmMappings mappings;
  // The hsperfdata mapping does not matter here, so no namespace pid is needed.
  return readJvmMappings(dir.get(), 0, mappings) == 0 && mappings.hotSpot();
}

std::optional<JvmInfo> inspectJvm(pid_t pid, const DiscoveryOptions& options) {
  UniqueFd dir = proc::openProcessDir(options.procRoot, pid);
  if (!dir) {
    if (errno == EACCES || errno == EPERM) throw permissionError(pid, "");
    return std::nullopt;
  }
  proc::FileData statusText = proc::readFileAt(dir.get(), "status", kSmallProcFileLimit);
  if (!statusText.ok()) return std::nullopt;
  const proc::ProcStatus status = proc::parseStatus(statusText.bytes);
  if (!status.effectiveUid || status.state == 'Z' || status.state == 'X') return std::nullopt;
  const pid_t namespacePid = status.nsTgid.empty() ? pid : status.innermostTgid();

  JvmMappings mappings;
  if (int error = readJvmMappings(dir.get(), namespacePid, mappings); error != 0) {
    if (error == EACCES || error == EPERM) throw permissionError(pid, "maps");
    return std::nullopt;  // gone (ESRCH), or a kernel thread
  }
  if (!mappings.hotSpot()) return std::nullopt;

  JvmInfo info;
  info.pid = pid;
  info.namespacePid = namespacePid;
  info.uid = *status.effectiveUid;
  info.user = userName(*status.effectiveUid);
  info.libjvmPath = mappings.libjvmPath;
  if (proc::FileData cgroup = proc::readFileAt(dir.get(), "cgroup", kSmallProcFileLimit); cgroup.ok()) {
    info.container = parseContainerInfo(cgroup.bytes);
  }
  auto differsFromOurs = [&](proc::NamespaceKind kind) {
    auto theirs = proc::namespaceAt(dir.get(), kind);
    auto ours = proc::ourNamespace(kind, options.procRoot);
    return theirs && ours && *theirs != *ours;
  };
  info.otherPidNamespace = namespacePid != pid || differsFromOurs(proc::NamespaceKind::Pid);
  info.otherMountNamespace = differsFromOurs(proc::NamespaceKind::Mount);

  std::optional<bool> capabilityAttach;
  bool haveVmArgs = false;
  proc::FileData perfBytes = readJvmPerfData(dir.get(), mappings);
  if (perfBytes.ok()) {
    auto bytes = std::span(reinterpret_cast<const uint8_t*>(perfBytes.bytes.data()), perfBytes.bytes.size());
    if (auto counters = parsePerfData(bytes)) {
      applyPerfData(*counters, info, capabilityAttach);
      haveVmArgs = counters->string(perf_counter::kVmArgs) != nullptr;
    }
  }
  // Without counters (-XX:-UsePerfData), or while the VM is still filling them in: the command line.
  if (info.mainClass.empty() || !haveVmArgs) {
    proc::FileData cmdline = proc::readFileAt(dir.get(), "cmdline", kCmdlineLimit);
    if (cmdline.ok()) {
      JavaCommandLine launch = parseJavaCommandLine(cmdline.bytes);
      if (info.mainClass.empty()) {
        info.mainClass = launch.mainClass;
        info.javaCommand = launch.javaCommand;
      }
      if (!haveVmArgs) info.vmArgs = vmOptionsFromLaunch(dir.get(), launch);
    }
  }
  if (info.javaVersion.empty() || info.javaHome.empty()) {
    UniqueFd root = proc::openProcessRootAt(dir.get());
    JavaRelease release = root ? findJavaRelease(root.get(), mappings.libjvmPath) : JavaRelease{};
    if (info.javaVersion.empty()) info.javaVersion = release.version;
    if (info.javaHome.empty()) info.javaHome = release.javaHome;
  }
  info.featureVersion = javaFeatureVersion(info.javaVersion);
  if (!info.startTimeMs) info.startTimeMs = processStartMs(dir.get(), options.procRoot);
  info.optedOut = optsOutOfProfiling(dir.get());

  AttachFacts facts;
  facts.state = status.state;
  facts.capabilityAttach = capabilityAttach;
  facts.featureVersion = info.featureVersion;
  facts.vmOptions = proc::splitFields(info.vmArgs);
  facts.catchesSigquit = status.catches(kSigquit);
  facts.listenerRunning = !facts.catchesSigquit && attachListenerRunning(dir.get(), namespacePid);
  info.attach = judgeAttach(facts);
  return info;
}

DiscoveryResult discoverJvms(const DiscoveryOptions& options) {
  DiscoveryResult result;
  std::vector<pid_t> pids = proc::listProcessIds(options.procRoot);
  std::sort(pids.begin(), pids.end());
  for (pid_t pid : pids) {
    try {
      if (auto info = inspectJvm(pid, options)) result.jvms.push_back(std::move(*info));
    } catch (const Error&) {
      result.unreadable.push_back(pid);
    }
  }
  return result;
}

}  // namespace jfrbpf::discovery
