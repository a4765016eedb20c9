#include "userspace/discovery/kubernetes_pod.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include "userspace/proc/root_files.h"

namespace jfrbpf::discovery {
namespace {

constexpr size_t kLongestName = 253;  // a DNS subdomain, Kubernetes' longest object name

// The one name the file at `path` holds, or "" when it holds anything else.
std::string nameIn(int rootFd, const char* path) {
  // /var/run is a link to /run in most images: followed, inside the root only.
  UniqueFd fd = proc::openInRoot(rootFd, path, O_RDONLY | O_NONBLOCK, proc::Links::kFollowInsideRoot);
  if (!fd) return "";
  std::array<char, kLongestName + 2> text{};
  const ssize_t got = ::read(fd.get(), text.data(), text.size());
  if (got <= 0) return "";
  std::string name(text.data(), static_cast<size_t>(got));
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  const bool valid = !name.empty() && name.size() <= kLongestName && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
  return valid ? name : "";
}

}  // namespace

std::optional<KubernetesPod> kubernetesPodIn(int rootFd) {
  KubernetesPod pod;
  pod.namespace_ = nameIn(rootFd, "/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  if (pod.namespace_.empty()) return std::nullopt;
  pod.name = nameIn(rootFd, "/etc/hostname");
  if (pod.name.empty()) return std::nullopt;
  return pod;
}

}  // namespace jfrbpf::discovery
