#pragma once
// Which Kubernetes pod a containerized process belongs to, from what the kubelet mounts into every container
// of a pod: /etc/hostname holds the pod's name (its hostname), and the service account's
// /var/run/secrets/kubernetes.io/serviceaccount/namespace its namespace. A pod that mounts no service
// account token is not recognised: nothing else in its files says it is a pod.
#include <optional>
#include <string>

namespace jfrbpf::discovery {

struct KubernetesPod {
  std::string name;       // k8s.pod.name
  std::string namespace_; // k8s.namespace.name
};

// Read inside the root directory open at `rootFd` (/proc/PID/root), never led out of it; nullopt when either
// file is missing or does not hold a Kubernetes name (lowercase letters, digits, '-' and '.', at most 253).
std::optional<KubernetesPod> kubernetesPodIn(int rootFd);

}  // namespace jfrbpf::discovery
