#pragma once
// Which container a process runs in, from the cgroup paths in /proc/PID/cgroup. Container runtimes name
// a container's cgroup after its 64-hex-digit id: "docker-<id>.scope", "cri-containerd-<id>.scope",
// "crio-<id>.scope", "libpod-<id>.scope" under systemd, or a plain "<id>" directory under /docker,
// /kubepods/..., /libpod_parent with the cgroupfs driver. cgroup v2 ("0::<path>") and v1 (one line per
// hierarchy) both appear; paths may start with "/.." when the reader sits in another cgroup namespace.
#include <string>
#include <string_view>

namespace jfrbpf::discovery {

struct ContainerInfo {
  std::string id;       // 64 lowercase hex digits; "" when the process is in no container we recognise
  std::string runtime;  // "docker", "containerd", "cri-o", "podman", "kubernetes" (cgroupfs driver), "unknown"
  std::string podUid;   // Kubernetes pod UID (with dashes) when the path names one

  bool known() const { return !id.empty(); }
  // The first 12 digits, as `docker ps` and `crictl ps` show them; "-" when there is no container.
  std::string shortId() const { return id.empty() ? "-" : id.substr(0, 12); }
};

ContainerInfo parseContainerInfo(std::string_view procCgroupText);

}  // namespace jfrbpf::discovery
