#include "userspace/attach/jvm_facts.h"

#include <fcntl.h>

#include "userspace/attach/attach_error.h"
#include "userspace/attach/jvm_options.h"
#include "userspace/attach/mapped_files.h"
#include "userspace/attach/message_text.h"
#include "userspace/proc/files.h"
#include "userspace/proc/mapped_file.h"
#include "userspace/proc/nul_separated.h"
#include "userspace/proc/paths.h"
#include "userspace/proc/process_dir.h"
#include "userspace/proc/root_files.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::attach {
namespace {

constexpr size_t kPerfDataLimit = 16 * 1024 * 1024;
constexpr size_t kCmdlineLimit = 1024 * 1024;
constexpr int kFirstVersionWithAgentWarning = 21;

// The hsperfdata file: the mapped file itself, never what its name may have become since.
std::optional<discovery::PerfData> readPerfData(const TargetProcess& process, const proc::Mapping& file) {
  UniqueFd fd = proc::openMappedFile(process.pid(), file, proc::Links::kRefuse);
  proc::FileData bytes = fd ? proc::readRegularFile(fd.get(), kPerfDataLimit) : proc::FileData{{}, errno};
  if (!bytes.ok()) return std::nullopt;
  return discovery::parsePerfData(std::span(reinterpret_cast<const uint8_t*>(bytes.bytes.data()), bytes.bytes.size()));
}

// Options in the order HotSpot applies them: JAVA_TOOL_OPTIONS, then what the launcher passes (JDK_JAVA_OPTIONS
// is inserted before the command line), then _JAVA_OPTIONS.
std::vector<std::string> optionsFromProc(const TargetProcess& process) {
  std::string cmdline = process.procFile("cmdline", kCmdlineLimit);
  std::string environ = process.procFile("environ", kCmdlineLimit);
  std::vector<std::string> options;
  auto addAll = [&](const std::vector<std::string_view>& list) {
    options.insert(options.end(), list.begin(), list.end());
  };
  for (const char* variable : {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"}) {
    if (auto value = proc::environmentValue(environ, variable)) addAll(splitOptions(*value));
  }
  addAll(launcherJvmOptions(cmdline));
  if (auto value = proc::environmentValue(environ, "_JAVA_OPTIONS")) addAll(splitOptions(*value));
  return options;
}

std::optional<bool> flagIn(const std::vector<std::string>& options, std::string_view name) {
  std::vector<std::string_view> views(options.begin(), options.end());
  return lastBooleanFlag(views, name);
}

}  // namespace

std::optional<int> javaFeatureVersion(std::string_view version) {
  if (version.starts_with("1.")) version.remove_prefix(2);
  size_t end = 0;
  while (end < version.size() && end < 4 && version[end] >= '0' && version[end] <= '9') ++end;
  auto feature = proc::parseNumber<int>(version.substr(0, end));
  if (!feature || *feature <= 0) return std::nullopt;
  return feature;
}

bool JvmFacts::loadingAgentPrintsWarning() const {
  if (!loadedAgentPath.empty() || dynamicAgentLoadingFlag.has_value()) return false;
  return !javaFeatureVersion || *javaFeatureVersion >= kFirstVersionWithAgentWarning;
}

std::string dynamicAgentWarningNote(const Target& target) {
  return "note: JDK 21+ prints \"WARNING: A JVM TI agent has been loaded dynamically\" to the stderr of pid " +
         std::to_string(target.pid) +
         " when jfrbpf loads its agent; this is expected, and starting that JVM with "
         "-XX:+EnableDynamicAgentLoading silences it";
}

JvmFacts inspectJvm(const TargetProcess& process) {
  std::vector<proc::Mapping> files = process.mappedFiles();
  JvmFacts facts;
  const proc::Mapping* libjvm = findByBaseName(files, "libjvm.so");
  if (!libjvm) {
    if (findByBaseNamePrefix(files, "libj9vm")) {
      throw AttachError(AttachFailure::NotHotSpot,
                        process.describe() +
                            " is an OpenJ9 JVM, which jfrbpf cannot attach to; start it "
                            "with -agentpath to use the agent, or profile its native code only");
    }
    throw AttachError(AttachFailure::NotHotSpot,
                      process.describe() +
                          " is not a HotSpot JVM (no libjvm.so mapped, not even yet); jfrbpf "
                          "can only profile its native and kernel frames");
  }
  facts.libjvmPath = libjvm->path;
  if (const proc::Mapping* agent = findByBaseNamePrefix(files, kAgentFileNamePrefix)) facts.loadedAgentPath = agent->path;

  std::optional<discovery::PerfData> perfData;
  if (const proc::Mapping* file = findPerfDataFile(files, process.target().namespacePid))
    perfData = readPerfData(process, *file);
  std::vector<std::string> options;
  if (perfData) {
    facts.perfDataAvailable = true;
    if (const std::string* v = perfData->string("java.property.java.vm.specification.version")) {
      facts.javaFeatureVersion = javaFeatureVersion(*v);
    }
    if (const std::string* v = perfData->string("java.property.java.version")) {
      facts.javaVersion = oneLine(*v, 64);
      if (!facts.javaFeatureVersion) facts.javaFeatureVersion = javaFeatureVersion(*v);
    }
    if (const std::string* v = perfData->string("sun.rt.javaCommand")) facts.javaCommand = oneLine(*v, 512);
    // HotSpot sets the first character from AttachListener::is_attach_supported(), i.e. !DisableAttachMechanism.
    if (const std::string* v = perfData->string("sun.rt.jvmCapabilities"); v && !v->empty()) {
      facts.attachEnabled = (*v)[0] == '1';
    }
    if (const std::string* v = perfData->string("java.rt.vmArgs")) {
      for (std::string_view option : splitOptions(*v)) options.emplace_back(option);
    }
  } else {
    options = optionsFromProc(process);
  }
  if (!facts.attachEnabled) {
    if (auto disabled = flagIn(options, "DisableAttachMechanism")) facts.attachEnabled = !*disabled;
  }
  facts.dynamicAgentLoadingFlag = flagIn(options, "EnableDynamicAgentLoading");
  process.ensureAlive("while jfrbpf inspected it");
  return facts;
}

}  // namespace jfrbpf::attach
