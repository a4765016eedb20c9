#include "userspace/discovery/container_id.h"

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "userspace/proc/text_fields.h"

namespace jfrbpf::discovery {
namespace {

constexpr size_t kIdLength = 64;

// systemd scope (or cgroupfs directory) prefixes and the runtime each belongs to.
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kScopePrefixes{{
    {"docker-", "docker"},
    {"cri-containerd-", "containerd"},
    {"crio-", "cri-o"},
    {"libpod-", "podman"},
    {"containerd-", "containerd"},
}};

std::vector<std::string_view> pathComponents(std::string_view path) {
  std::vector<std::string_view> components;
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view component = path.substr(0, slash);
    if (!component.empty()) components.push_back(component);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return components;
}

bool isContainerId(std::string_view s) { return s.size() == kIdLength && proc::isLowerHex(s); }

// "docker-<id>.scope" -> {id, "docker"}; a bare "<id>" -> {id, ""}.
std::pair<std::string_view, std::string_view> idInComponent(std::string_view component) {
  if (isContainerId(component)) return {component, ""};
  std::string_view name = component;
  if (name.ends_with(".scope")) name.remove_suffix(6);
  for (const auto& [prefix, runtime] : kScopePrefixes) {
    if (name.starts_with(prefix) && isContainerId(name.substr(prefix.size()))) {
      return {name.substr(prefix.size()), runtime};
    }
  }
  return {};  // includes "crio-conmon-<id>.scope": CRI-O's monitor process, not the container
}

// "pod<uid>" (cgroupfs) or "kubepods-<qos>-pod<uid with '_'>.slice" (systemd) -> the uid with dashes.
std::string podUidIn(std::string_view component) {
  std::string_view name = component;
  if (name.ends_with(".slice")) name.remove_suffix(6);
  size_t pod = name.rfind("pod");
  if (pod == std::string_view::npos || (pod != 0 && name[pod - 1] != '-')) return {};
  if (pod != 0 && !name.starts_with("kubepods")) return {};
  std::string uid(name.substr(pod + 3));
  for (char& c : uid) {
    if (c == '_') c = '-';
  }
  constexpr size_t kUuidLength = 36;
  if (uid.size() != kUuidLength) return {};
  for (char c : uid) {
    if (c != '-' && !proc::isLowerHex(std::string_view(&c, 1))) return {};
  }
  return uid;
}

// The runtime of a bare id, from the directories above it.
std::string_view runtimeFromAncestors(const std::vector<std::string_view>& ancestors) {
  for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it) {
    if (*it == "docker") return "docker";
    if (*it == "libpod_parent") return "podman";
    if (it->starts_with("kubepods")) return "kubernetes";
  }
  return "unknown";
}

// The innermost container named in one cgroup path.
ContainerInfo containerInPath(std::string_view path) {
  ContainerInfo info;
  std::vector<std::string_view> components = pathComponents(path);
  for (size_t i = components.size(); i-- > 0;) {
    auto [id, runtime] = idInComponent(components[i]);
    if (id.empty()) continue;
    std::vector<std::string_view> ancestors(components.begin(), components.begin() + static_cast<ptrdiff_t>(i));
    info.id = id;
    info.runtime = runtime.empty() ? runtimeFromAncestors(ancestors) : runtime;
    for (std::string_view ancestor : ancestors) {
      if (std::string uid = podUidIn(ancestor); !uid.empty()) info.podUid = std::move(uid);
    }
    break;
  }
  return info;
}

}  // namespace

ContainerInfo parseContainerInfo(std::string_view procCgroupText) {
  // "hierarchy-id:controllers:path". The unified (v2) line comes first in preference; on hybrid hosts the
  // runtime may only have placed the process in v1 hierarchies, so those are tried next, in file order.
  std::vector<std::string_view> v2Paths, v1Paths;
  proc::forEachLine(procCgroupText, [&](std::string_view line) {
    size_t first = line.find(':');
    if (first == std::string_view::npos) return;
    size_t second = line.find(':', first + 1);
    if (second == std::string_view::npos) return;
    std::string_view path = line.substr(second + 1);
    (line.substr(0, first) == "0" && second == first + 1 ? v2Paths : v1Paths).push_back(path);
  });
  for (const auto* paths : {&v2Paths, &v1Paths}) {
    for (std::string_view path : *paths) {
      if (ContainerInfo info = containerInPath(path); info.known()) return info;
    }
  }
  return {};
}

}  // namespace jfrbpf::discovery
