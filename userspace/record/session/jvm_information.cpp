#include "userspace/record/session/jvm_information.h"

#include <unistd.h>

#include <array>
#include <string>

#include "userspace/proc/host_name.h"

namespace jfrbpf::record {

jfr::JvmInformation jvmInformationOf(const discovery::JvmInfo& info) {
  jfr::JvmInformation jvm;
  jvm.jvmName = info.vmName;
  jvm.jvmVersion = info.vmVersion.empty() ? info.javaVersion : info.vmVersion;
  jvm.jvmArguments = info.vmArgs;
  jvm.javaArguments = info.javaCommand;
  jvm.jvmStartTimeMillis = info.startTimeMs.value_or(0);
  jvm.pid = info.pid;
  return jvm;
}

jfr::ProcessResource processResourceOf(const discovery::JvmInfo& info) {
  jfr::ProcessResource resource;
  resource.pid = info.pid;
  resource.hostName = proc::hostName();
  std::array<char, 4096> exe{};
  const std::string link = "/proc/" + std::to_string(info.pid) + "/exe";
  const ssize_t length = ::readlink(link.c_str(), exe.data(), exe.size() - 1);
  if (length > 0) {
    resource.executablePath.assign(exe.data(), static_cast<size_t>(length));
    resource.executableName = resource.executablePath.substr(resource.executablePath.rfind('/') + 1);
  }
  resource.containerId = info.container.id;
  if (!info.container.id.empty()) resource.containerRuntime = info.container.runtime;
  return resource;
}

}  // namespace jfrbpf::record
