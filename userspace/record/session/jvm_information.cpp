#include "userspace/record/session/jvm_information.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <string>

#include "base/unique_fd.h"
#include "userspace/discovery/kubernetes_pod.h"
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
  if (info.container.id.empty()) return resource;
  resource.containerRuntime = info.container.runtime;
  const UniqueFd root(::open(("/proc/" + std::to_string(info.pid) + "/root").c_str(),
                             O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root) {
    if (std::optional<discovery::KubernetesPod> pod = discovery::kubernetesPodIn(root.get())) {
      resource.k8sPodName = pod->name;
      resource.k8sNamespaceName = pod->namespace_;
    }
  }
  return resource;
}

}  // namespace jfrbpf::record
