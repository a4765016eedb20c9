#include "userspace/discovery/discovery.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "userspace/base/error.h"
#include "userspace/discovery/hsperfdata.h"
#include "userspace/discovery/java_command_line.h"
#include "userspace/discovery/java_release.h"
#include "userspace/discovery/jvm_mappings.h"
#include "userspace/discovery/namespaces.h"
#include "userspace/discovery/perf_data_file.h"
#include "userspace/discovery/proc_files.h"
#include "userspace/discovery/proc_status.h"
#include "userspace/discovery/text_fields.h"

namespace jfrbpf::discovery {
namespace {

constexpr size_t kSmallProcFileLimit = 64 * 1024;
constexpr size_t kCmdlineLimit = 256 * 1024;
constexpr size_t kEnvironLimit = 1 << 20;
constexpr int kSigquit = 3;

Error permissionError(pid_t pid, const char* what) {
  return Error("cannot read /proc/" + std::to_string(pid) + "/" + what +
                   ": permission denied; run jfrbpf as root (or with CAP_SYS_PTRACE)",
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
  FileData statText = readFileAt(procDirFd, "stat", kSmallProcFileLimit);
  if (!statText.ok()) return std::nullopt;
  auto stat = parseProcStat(statText.bytes);
  FileData systemStat = readFileAt(AT_FDCWD, (procRoot + "/stat").c_str(), kSmallProcFileLimit);
  long ticksPerSecond = ::sysconf(_SC_CLK_TCK);
  if (!stat || !systemStat.ok() || ticksPerSecond <= 0) return std::nullopt;
  std::optional<int64_t> bootSeconds;
  forEachLine(systemStat.bytes, [&](std::string_view line) {
    if (line.starts_with("btime ")) bootSeconds = parseNumber<int64_t>(trimBlanks(line.substr(6)));
  });
  if (!bootSeconds) return std::nullopt;
  return *bootSeconds * 1000 + static_cast<int64_t>(stat->startTicks) * 1000 / ticksPerSecond;
}

// NUL-separated KEY=VALUE list -> VALUE of `key`.
std::string_view environmentValue(std::string_view environment, std::string_view key) {
  while (!environment.empty()) {
    size_t nul = environment.find('\0');
    std::string_view entry = environment.substr(0, nul);
    if (entry.size() > key.size() && entry.starts_with(key) && entry[key.size()] == '=') return entry.substr(key.size() + 1);
    if (nul == std::string_view::npos) break;
    environment.remove_prefix(nul + 1);
  }
  return {};
}

// The options the VM saw, in the order HotSpot applies them (later ones win): JAVA_TOOL_OPTIONS, then the
// launcher's JDK_JAVA_OPTIONS and command line, then _JAVA_OPTIONS.
std::string vmOptionsFromLaunch(int procDirFd, const JavaCommandLine& commandLine) {
  FileData environment = readFileAt(procDirFd, "environ", kEnvironLimit);
  std::string options;
  auto append = [&](std::string_view words) {
    for (std::string_view word : splitFields(words)) {
      if (!options.empty()) options += ' ';
      options += word;
    }
  };
  if (environment.ok()) {
    append(environmentValue(environment.bytes, "JAVA_TOOL_OPTIONS"));
    append(environmentValue(environment.bytes, "JDK_JAVA_OPTIONS"));
  }
  for (const std::string& option : commandLine.vmOptions) append(option);
  if (environment.ok()) append(environmentValue(environment.bytes, "_JAVA_OPTIONS"));
  return options;
}

// True when <tmp>/.java_pid<nspid> inside the JVM's root is a socket: its attach listener already runs.
bool attachListenerRunning(int procDirFd, pid_t namespacePid) {
  UniqueFd root(::openat(procDirFd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return false;
  UniqueFd socket = openInRoot(root.get(), "/tmp/.java_pid" + std::to_string(namespacePid), O_PATH);
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
  if (std::string flags = text(perf_counter::kVmFlags); !trimBlanks(flags).empty()) {
    info.vmArgs += (info.vmArgs.empty() ? "" : " ") + flags;
  }
  if (auto begin = counters.number(perf_counter::kCreateVmBeginTime); begin && *begin > 0) info.startTimeMs = begin;
  if (const std::string* capabilities = counters.string(perf_counter::kJvmCapabilities); capabilities && !capabilities->empty()) {
    capabilityAttach = capabilities->front() == '1';
  }
}

}  // namespace

bool isHotSpotJvm(pid_t pid, const DiscoveryOptions& options) {
  UniqueFd dir = openProcessDir(options.procRoot, pid);
  if (!dir) return false;
  JvmMappings mappings;
  // The hsperfdata mapping does not matter here, so no namespace pid is needed.
  return readJvmMappings(dir.get(), 0, mappings) == 0 && mappings.hotSpot();
}

std::optional<JvmInfo> inspectJvm(pid_t pid, const DiscoveryOptions& options) {
  UniqueFd dir = openProcessDir(options.procRoot, pid);
  if (!dir) {
    if (errno == EACCES || errno == EPERM) throw permissionError(pid, "");
    return std::nullopt;
  }
  FileData statusText = readFileAt(dir.get(), "status", kSmallProcFileLimit);
  if (!statusText.ok()) return std::nullopt;
  auto status = parseProcStatus(statusText.bytes);
  if (!status || status->state == 'Z' || status->state == 'X') return std::nullopt;
  const pid_t namespacePid = status->nsTgid.empty() ? pid : status->innermostTgid();

  JvmMappings mappings;
  if (int error = readJvmMappings(dir.get(), namespacePid, mappings); error != 0) {
    if (error == EACCES || error == EPERM) throw permissionError(pid, "maps");
    return std::nullopt;  // gone (ESRCH), or a kernel thread
  }
  if (!mappings.hotSpot()) return std::nullopt;

  JvmInfo info;
  info.pid = pid;
  info.namespacePid = namespacePid;
  info.uid = status->effectiveUid;
  info.user = userName(status->effectiveUid);
  info.libjvmPath = mappings.libjvmPath;
  if (FileData cgroup = readFileAt(dir.get(), "cgroup", kSmallProcFileLimit); cgroup.ok()) {
    info.container = parseContainerInfo(cgroup.bytes);
  }
  auto differsFromOurs = [&](NamespaceKind kind) {
    auto theirs = namespaceAt(dir.get(), kind);
    auto ours = ourNamespace(kind, options.procRoot);
    return theirs && ours && *theirs != *ours;
  };
  info.otherPidNamespace = namespacePid != pid || differsFromOurs(NamespaceKind::Pid);
  info.otherMountNamespace = differsFromOurs(NamespaceKind::Mount);

  std::optional<bool> capabilityAttach;
  bool haveVmArgs = false;
  FileData perfBytes = readJvmPerfData(dir.get(), mappings);
  if (perfBytes.ok()) {
    auto bytes = std::span(reinterpret_cast<const uint8_t*>(perfBytes.bytes.data()), perfBytes.bytes.size());
    if (auto counters = parsePerfData(bytes)) {
      applyPerfData(*counters, info, capabilityAttach);
      haveVmArgs = counters->string(perf_counter::kVmArgs) != nullptr;
    }
  }
  // Without counters (-XX:-UsePerfData), or while the VM is still filling them in: the command line.
  if (info.mainClass.empty() || !haveVmArgs) {
    FileData cmdline = readFileAt(dir.get(), "cmdline", kCmdlineLimit);
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
    UniqueFd root(::openat(dir.get(), "root", O_PATH | O_DIRECTORY | O_CLOEXEC));
    JavaRelease release = root ? findJavaRelease(root.get(), mappings.libjvmPath) : JavaRelease{};
    if (info.javaVersion.empty()) info.javaVersion = release.version;
    if (info.javaHome.empty()) info.javaHome = release.javaHome;
  }
  info.featureVersion = javaFeatureVersion(info.javaVersion);
  if (!info.startTimeMs) info.startTimeMs = processStartMs(dir.get(), options.procRoot);

  AttachFacts facts;
  facts.state = status->state;
  facts.capabilityAttach = capabilityAttach;
  facts.featureVersion = info.featureVersion;
  facts.vmOptions = splitFields(info.vmArgs);
  facts.catchesSigquit = status->catches(kSigquit);
  facts.listenerRunning = !facts.catchesSigquit && attachListenerRunning(dir.get(), namespacePid);
  info.attach = judgeAttach(facts);
  return info;
}

DiscoveryResult discoverJvms(const DiscoveryOptions& options) {
  DiscoveryResult result;
  std::vector<pid_t> pids = listProcessIds(options.procRoot);
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
